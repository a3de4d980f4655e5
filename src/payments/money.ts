// Money is held as integer minor units (tetri, cents) everywhere. These helpers are the only place
// where a decimal written by a client becomes minor units and back; no floating-point arithmetic
// touches an amount — conversion goes through the decimal string.

/** Largest number of whole-unit digits accepted, so that minor units always stay safe integers. */
const MAX_WHOLE_DIGITS = 13;
const DECIMAL = /^(\d+)(?:\.(\d{1,2}))?$/;

export type ParsedAmount = { ok: true; minor: number } | { ok: false; reason: string };

/**
 * Parses an amount given as a JSON number or a decimal string ("10", "10.5", "10.50").
 * Rejects negatives, NaN/Infinity, exponent notation, and more than two decimals.
 */
export function parseAmount(input: unknown): ParsedAmount {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { ok: false, reason: 'must be a finite number' };
    // String(n) is the shortest decimal that round-trips, i.e. exactly what the client wrote
    // for any literal with up to 15 significant digits.
    text = String(input);
  } else if (typeof input === 'string') {
    text = input.trim();
  } else {
    return { ok: false, reason: 'must be a number or a decimal string' };
  }
  if (text.startsWith('-')) return { ok: false, reason: 'must not be negative' };
  const m = DECIMAL.exec(text);
  if (!m) {
    if (/^\d*\.\d{3,}$/.test(text) || /e-/i.test(text)) return { ok: false, reason: 'must have at most two decimals' };
    return { ok: false, reason: 'must be a decimal amount with at most two decimals' };
  }
  const whole = m[1]!.replace(/^0+(?=\d)/, '');
  if (whole.length > MAX_WHOLE_DIGITS) return { ok: false, reason: 'is too large' };
  const frac = (m[2] ?? '').padEnd(2, '0');
  return { ok: true, minor: Number(whole + frac) };
}

/** Formats minor units as a plain decimal string with two decimals ("10.50"). */
export function formatMinor(minor: number): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not an integer amount: ${minor}`);
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(3, '0');
  return `${sign}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * Minor units as a JSON number with at most two decimals (1050 → 10.5, 1005 → 10.05). Built from
 * the decimal string, so the number printed is exactly the decimal amount.
 */
export function toJsonAmount(minor: number): number {
  return Number(formatMinor(minor));
}

/** Like toJsonAmount but passes null/undefined through as null. */
export function toJsonAmountOrNull(minor: number | null | undefined): number | null {
  return minor === null || minor === undefined ? null : toJsonAmount(minor);
}

/** True when part ≤ percent% of total, in integer arithmetic. */
export function isWithinPercent(part: number, total: number, percent: number): boolean {
  return part * 100 <= total * percent;
}

/** ⌈amount / parts⌉ in exact integer arithmetic (e.g. an installment's monthly payment). */
export function ceilDiv(amount: number, parts: number): number {
  const a = BigInt(amount);
  const b = BigInt(parts);
  return Number((a + b - 1n) / b);
}
