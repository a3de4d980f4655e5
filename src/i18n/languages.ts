export const LANGUAGES = ['ka', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
