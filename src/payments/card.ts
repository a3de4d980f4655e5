// Card number and expiry rules (pure). The number itself is never stored or logged; only the mask.

/** Luhn (mod 10) check of a digits-only card number of plausible length. */
export function isLuhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d += d;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Removes the spaces and dashes people type between digit groups. */
/** A card number written into text: 13–19 digits (groups may be spaced or dashed) in a card scheme's
 * range (2–6), Luhn-valid, not part of a longer word. Used to keep card numbers out of free text
 * (they must never be stored) and by the history checker to prove none was. */
// Not part of a longer word either way, nor of a longer dash-joined token: a UUID whose first
// three groups happen to be digits ("45713311-1234-4601-8abc-…", about 1 in 23,000 random UUIDs) is
// an id, not a card number — the request log stores request ids, and merchants send order UUIDs.
const PAN_IN_TEXT = /(?<![0-9A-Za-z])(?<![0-9A-Za-z]-)[2-6]\d{3}(?:[ -]?\d){9,15}(?![0-9A-Za-z])(?!-[0-9A-Za-z])/g;

/** `text` with every card number in it masked to its last four digits. */
export function maskCardNumbersIn(text: string): string {
  return text.replace(PAN_IN_TEXT, (m) => {
    const digits = m.replace(/[ -]/g, '');
    return digits.length >= 13 && digits.length <= 19 && isLuhnValid(digits) ? `••••${digits.slice(-4)}` : m;
  });
}

export function cardNumbersIn(text: string): string[] {
  return [...text.matchAll(PAN_IN_TEXT)]
    .map((m) => m[0].replace(/[ -]/g, ''))
    .filter((d) => d.length >= 13 && d.length <= 19 && isLuhnValid(d));
}

export const normaliseCardNumber = (input: string) => input.replace(/[\s-]/g, '');

/** First six and last four digits, the rest masked: 411111******1111. */
export function maskCardNumber(number: string): string {
  return `${number.slice(0, 6)}${'*'.repeat(Math.max(0, number.length - 10))}${number.slice(-4)}`;
}

/** Parses "MM/YY", "MM / YY", "MMYY" or "MM/YYYY" into month and four-digit year. */
export function parseCardExpiry(input: string): { month: number; year: number } | null {
  const m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(input);
  if (!m) return null;
  const month = Number(m[1]);
  if (month < 1 || month > 12) return null;
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  return { month, year };
}

/** A card is valid through the last day of its expiry month. */
export function isCardExpired(exp: { month: number; year: number }, now: { year: number; month: number }): boolean {
  return exp.year < now.year || (exp.year === now.year && exp.month < now.month);
}

export const toMmYy = (exp: { month: number; year: number }) =>
  `${String(exp.month).padStart(2, '0')}${String(exp.year % 100).padStart(2, '0')}`;

/** The earlier of two MMYY dates. */
export function earlierMmYy(a: string, b: string): string {
  const key = (s: string) => `${s.slice(2)}${s.slice(0, 2)}`;
  return key(a) <= key(b) ? a : b;
}

export type CardField = 'number' | 'expiry' | 'securityCode' | 'holder';
export type CardProblem = 'invalid_number' | 'invalid_expiry' | 'expired' | 'invalid_security_code' | 'missing_holder';

export interface CardInput {
  number?: string;
  expiry?: string;
  securityCode?: string;
  holder?: string;
}
