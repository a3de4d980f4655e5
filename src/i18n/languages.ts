export const LANGUAGES = ['ka', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

// The one table of the languages the gateway's pages speak (checkout, dashboard). Adding a language
// is a row here; every dictionary typed Record<Language, …> then fails to compile until it has the
// language's texts. Georgian comes first: it is the bank's default.

export interface LanguageInfo {
  /** The language's name in itself, as the language switcher shows it. */
  name: string;
  /** BCP 47 locale for dates (Intl) on the pages. */
  locale: string;
  /** The page's <html lang> and a link's hreflang. */
  htmlLang: string;
  /** A link to a page's version in this language, as its readers name it ("In English"). */
  inLanguage: string;
  /** The same, short, beside a title in the docs' navigation. */
  short: string;
}

export const LANGUAGE_INFO = {
  ka: { name: 'ქართული', locale: 'ka-GE', htmlLang: 'ka', inLanguage: 'ქართულად', short: 'ქართ.' },
  en: { name: 'English', locale: 'en-GB', htmlLang: 'en', inLanguage: 'In English', short: 'Eng.' },
} as const satisfies Record<Language, LanguageInfo>;

/**
 * The language the documentation is written in; a page's translation into another language is the
 * file beside it named `<name>.<language>.md` (docs/guides/quickstart.ka.md).
 */
export const DOCS_LANGUAGE: Language = 'en';

/** Georgian: the bank's rule for the checkout, and the dashboard's when the browser names no language of ours. */
export const DEFAULT_LANGUAGE: Language = 'ka';

export const isLanguage = (v: unknown): v is Language => LANGUAGES.some((l) => l === v);

/** A language code as written anywhere (`en`, `EN`, the API's `language: "KA"`): ours, or undefined. */
export function languageOf(v: unknown): Language | undefined {
  if (typeof v !== 'string') return undefined;
  const lower = v.toLowerCase();
  return isLanguage(lower) ? lower : undefined;
}

/** The languages a page in `lang` offers to switch to: every other one, in the table's order. */
export const otherLanguages = (lang: Language): Language[] => LANGUAGES.filter((l) => l !== lang);

/** What a page's texts carry of their language: its code (amount separators, links) and locale (dates). */
export const languageTexts = (lang: Language): { lang: Language; locale: string } => ({
  lang,
  locale: LANGUAGE_INFO[lang].locale,
});

/**
 * The browser's preferred language of ours from an Accept-Language header (RFC 9110 12.5.4): ranges
 * by descending q, `en-US` matching `en`, `*` matching the default; q=0 refuses. Whatever the header
 * holds (nothing, garbage, only languages we do not speak) the answer is a language, never an error.
 */
export function fromAcceptLanguage(header: unknown, fallback: Language = DEFAULT_LANGUAGE): Language {
  if (typeof header !== 'string' || header.length > 1000) return fallback;
  const ranges: { lang: Language; q: number; at: number }[] = [];
  header.split(',').forEach((part, at) => {
    const [range = '', ...params] = part.trim().split(';');
    const tag = range.trim().toLowerCase();
    if (!/^(\*|[a-z]{1,8}(-[a-z0-9]{1,8})*)$/.test(tag)) return;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*(0(\.\d{0,3})?|1(\.0{0,3})?)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
      else if (/^\s*q\s*=/i.test(p)) q = 0; // a malformed weight counts for nothing
    }
    const primary = tag === '*' ? fallback : tag.split('-')[0];
    if (q > 0 && isLanguage(primary)) ranges.push({ lang: primary, q, at });
  });
  // The highest weight wins; among equals, the one written first.
  ranges.sort((a, b) => b.q - a.q || a.at - b.at);
  return ranges[0]?.lang ?? fallback;
}
