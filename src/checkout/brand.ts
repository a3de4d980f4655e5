// The shop's brand colour as the checkout's stylesheet variables, with text colours that stay
// readable on it (WCAG contrast): white or black on a brand-coloured button, and the brand itself for
// links on white only when it is dark enough (else the ink colour).
const INK = '#16191f';
export const DEFAULT_BRAND = '#0b57d0';

/** Relative luminance of a #rrggbb colour (WCAG 2). */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

export const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
};

/** brand.css for a #rrggbb colour (anything else: the default brand). */
export function brandCss(color: string | null): string {
  const brand = color && /^#[0-9a-f]{6}$/.test(color) ? color : DEFAULT_BRAND;
  // White or black, whichever reads better: one of them always reaches 4.58:1.
  const onBrand = contrast(brand, '#ffffff') >= contrast(brand, '#000000') ? '#fff' : '#000';
  const brandText = contrast(brand, '#ffffff') >= 4.5 ? brand : INK;
  return `:root{--brand:${brand};--on-brand:${onBrand};--brand-text:${brandText}}\n`;
}
