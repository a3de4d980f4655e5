// The card schemes the checkout recognises, and every picture on the page: scheme marks, wallet
// marks, method and status icons. All are inline SVG of our own drawing (no third-party logo files,
// no external requests); they use presentation attributes only, which the page's CSP allows.
import { html, trusted, type Html } from '../html/html.ts';

export interface Scheme {
  id: 'visa' | 'mastercard' | 'amex';
  name: string;
  /** Which numbers belong to the scheme (tested against the first digits). */
  prefix: RegExp;
  /** How the number is grouped while it is typed. */
  groups: number[];
}

export const SCHEMES: readonly Scheme[] = [
  { id: 'visa', name: 'Visa', prefix: /^4/, groups: [4, 4, 4, 4, 3] },
  { id: 'mastercard', name: 'Mastercard', prefix: /^(5[1-5]|2[2-7])/, groups: [4, 4, 4, 4] },
  { id: 'amex', name: 'American Express', prefix: /^3[47]/, groups: [4, 6, 5] },
];

/** The scheme of a card number or of a card mask ("411111******1111"), if it is one we know. */
export const schemeOf = (numberOrMask: string | null | undefined): Scheme | undefined =>
  numberOrMask ? SCHEMES.find((s) => s.prefix.test(numberOrMask)) : undefined;

const DRAWINGS: Record<Scheme['id'], string> = {
  visa: '<rect width="38" height="24" rx="3" fill="#1a1f71"/><text x="19" y="16.2" text-anchor="middle" fill="#fff" font-family="Arial,Helvetica,sans-serif" font-size="10.5" font-weight="700" font-style="italic" letter-spacing=".4">VISA</text>',
  mastercard:
    '<rect x=".5" y=".5" width="37" height="23" rx="2.5" fill="#fff" stroke="#c9ced6"/><circle cx="15" cy="12" r="7" fill="#eb001b"/><circle cx="23" cy="12" r="7" fill="#f79e1b"/><path d="M19 6.26A7 7 0 0 1 19 17.74A7 7 0 0 1 19 6.26Z" fill="#ff5f00"/>',
  amex: '<rect width="38" height="24" rx="3" fill="#1f72cd"/><text x="19" y="15.6" text-anchor="middle" fill="#fff" font-family="Arial,Helvetica,sans-serif" font-size="9" font-weight="700" letter-spacing=".3">AMEX</text>',
};

/** A scheme's mark, decorative (the text next to it names the scheme). */
export function schemeMark(s: Scheme, extra: Html = html``): Html {
  return html`<svg class="mark mark-${s.id}" viewBox="0 0 38 24" width="38" height="24" aria-hidden="true" focusable="false"${extra}>${trusted(DRAWINGS[s.id])}</svg>`;
}

/** The marks of every scheme, for the card number field: the page script reads which is which. */
export const fieldMarks = () =>
  html`<span class="field-marks" aria-hidden="true">${SCHEMES.map((s) =>
    schemeMark(
      s,
      html` data-scheme="${s.id}" data-name="${s.name}" data-prefix="${s.prefix.source}" data-groups="${s.groups.join(',')}"`,
    ),
  )}</span>`;

/** The row of accepted schemes, as one image with a name. */
export const acceptedMarks = (label: string) =>
  html`<span class="marks" role="img" aria-label="${label}">${SCHEMES.map((s) => schemeMark(s))}</span>`;

const APPLE =
  '<path d="M11.7.5c.2 1.4-.4 2.6-1.1 3.4-.7.7-1.8 1.2-2.7 1.1-.1-1.3.4-2.5 1.1-3.2C9.7 1 10.8.5 11.7.5Z"/><path d="M8.6 5.3c1 0 2.3-.9 3.8-.8.7 0 2.5.3 3.6 2-2.8 1.7-2.4 5.8.5 7-.6 1.8-2.2 4.9-3.9 4.9-1.4.1-1.9-.8-3.6-.8s-2.3.8-3.6.9C3.7 18.5 1 15 .6 11.3.2 7.5 2.6 4.6 5.1 4.5c1.4 0 2.5.8 3.5.8Z"/>';
const GOOGLE_G =
  '<g fill="none" stroke-width="3.4"><circle cx="10" cy="10" r="7" stroke="#4285f4" stroke-dasharray="6.11 37.87"/><circle cx="10" cy="10" r="7" stroke="#34a853" stroke-dasharray="11.61 32.37" stroke-dashoffset="-6.11"/><circle cx="10" cy="10" r="7" stroke="#fbbc04" stroke-dasharray="8.55 35.43" stroke-dashoffset="-17.71"/><circle cx="10" cy="10" r="7" stroke="#ea4335" stroke-dasharray="12.22 31.76" stroke-dashoffset="-26.27"/></g><rect x="10" y="8.3" width="8.7" height="3.4" fill="#4285f4"/>';

export type Wallet = 'apple' | 'google';

/** A wallet's glyph: an apple (Apple Pay) or a four-colour G (Google Pay); decorative unless named. */
export function walletGlyph(wallet: Wallet, named = false): Html {
  const a11y = named
    ? html`role="img" aria-label="${wallet === 'apple' ? 'Apple' : 'Google'}"`
    : html`aria-hidden="true"`;
  return wallet === 'apple'
    ? html`<svg class="glyph" viewBox="0 0 17 19" width="17" height="19" ${a11y} focusable="false" fill="currentColor">${trusted(APPLE)}</svg>`
    : html`<svg class="glyph" viewBox="0 0 20 20" width="20" height="20" ${a11y} focusable="false">${trusted(GOOGLE_G)}</svg>`;
}

/**
 * The wallet's mark as drawn on its button: the glyph, then "Pay". Named, it reads "Apple Pay" or
 * "Google Pay" (the glyph is an image with that name), so the button needs no aria-label.
 */
export const walletMark = (wallet: Wallet, named = false) =>
  html`<span class="wallet-mark">${walletGlyph(wallet, named)} <span>Pay</span></span>`;

const ICONS = {
  card: '<rect x="2.5" y="5.5" width="19" height="13" rx="2"/><path d="M2.5 9.5h19M6 15h4"/>',
  qr: '<path d="M4 4h6v6H4zM14 4h6v6h-6zM4 14h6v6H4zM14 14h2.5v2.5H14zM17.5 17.5H20V20h-2.5zM14 20h1M20 14v1"/>',
  bank: '<path d="M3 9.5 12 4l9 5.5M5.5 10.5v6.5M10 10.5v6.5M14 10.5v6.5M18.5 10.5v6.5M3 20h18"/>',
  calendar:
    '<rect x="3.5" y="5" width="17" height="15" rx="2"/><path d="M3.5 10h17M8 3v4M16 3v4M8 14h2M14 14h2M8 17h2"/>',
  lock: '<rect x="5" y="10.5" width="14" height="10" rx="2"/><path d="M8 10.5v-3a4 4 0 0 1 8 0v3M12 14.5v2"/>',
  globe:
    '<circle cx="12" cy="12" r="9"/><path d="M3 12h18M12 3c2.4 2.6 3.6 5.6 3.6 9s-1.2 6.4-3.6 9c-2.4-2.6-3.6-5.6-3.6-9S9.6 5.6 12 3Z"/>',
  check: '<circle cx="12" cy="12" r="10"/><path d="m7.5 12.4 3 3 6-6.4"/>',
  cross: '<circle cx="12" cy="12" r="10"/><path d="m8.6 8.6 6.8 6.8m0-6.8-6.8 6.8"/>',
  clock: '<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3.2 2"/>',
  info: '<circle cx="12" cy="12" r="9"/><path d="M12 11v5.5M12 7.6v.1"/>',
  shield:
    '<path d="M12 2.8 4.8 5.6v5.5c0 4.6 3 8.3 7.2 10.1 4.2-1.8 7.2-5.5 7.2-10.1V5.6Z"/><path d="m8.8 12 2.3 2.3 4.3-4.5"/>',
  undo: '<path d="M9 14 4 9l5-5"/><path d="M4 9h10.5a5.5 5.5 0 0 1 0 11H11"/>',
  star: '<path d="m12 3.2 2.7 5.5 6 .9-4.35 4.24 1.03 6-5.38-2.83-5.38 2.83 1.03-6L3.3 9.6l6-.9Z"/>',
} as const;

export type IconName = keyof typeof ICONS;

/** A line icon in the text colour, decorative. */
export const icon = (name: IconName, cls = '') =>
  html`<svg class="icon${cls ? ` ${cls}` : ''}" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">${trusted(ICONS[name])}</svg>`;
