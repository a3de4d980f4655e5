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

export const toMmYy = (exp: { month: number; year: number }) => `${String(exp.month).padStart(2, '0')}${String(exp.year % 100).padStart(2, '0')}`;

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

/**
 * Checks what a customer typed into the card form. Problems are codes (the page words them in
 * the customer's language); `now` is the current year and month in the gateway's time zone.
 */
export function checkCardInput(input: CardInput, now: { year: number; month: number }):
  | { ok: true; card: { number: string; expMonth: number; expYear: number; securityCode: string; holder: string } }
  | { ok: false; problems: Partial<Record<CardField, CardProblem>> } {
  const problems: Partial<Record<CardField, CardProblem>> = {};
  const number = normaliseCardNumber(input.number ?? '');
  if (!isLuhnValid(number)) problems.number = 'invalid_number';
  const exp = parseCardExpiry(input.expiry ?? '');
  if (!exp || exp.year > now.year + 25) problems.expiry = 'invalid_expiry';
  else if (isCardExpired(exp, now)) problems.expiry = 'expired';
  const securityCode = (input.securityCode ?? '').trim();
  if (!/^\d{3,4}$/.test(securityCode)) problems.securityCode = 'invalid_security_code';
  const holder = (input.holder ?? '').trim().replace(/\s+/g, ' ');
  if (holder.length < 2 || holder.length > 100 || /[\u0000-\u001f<>]/.test(holder)) problems.holder = 'missing_holder';
  if (Object.keys(problems).length) return { ok: false, problems };
  return { ok: true, card: { number, expMonth: exp!.month, expYear: exp!.year, securityCode, holder } };
}
