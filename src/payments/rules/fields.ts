// Small validators of single values, shared by every request that carries such a value. Each adds
// its violation to the request's Violations (so all of a request's problems are reported at once)
// and returns the checked value, or null when it is not usable.
import { ERRORS } from '../../errors/catalogue.ts';
import type { Violations } from '../../errors/gateway-error.ts';
import type { Merchant } from '../../merchants/merchant.ts';
import { CURRENCIES } from '../methods.ts';
import { formatMinor, parseAmount } from '../money.ts';
import {
  charLength,
  hasControlCharacter,
  isAnsiPrintable,
  isHttpUrl,
  isMonthInPast,
  isWellFormedText,
  parseMmYy,
} from '../text.ts';
import { cardNumbersIn } from '../card.ts';
import { POLICY } from './policy.ts';

/** A currency code (any case) the merchant has enabled; the upper-case code, or null. */
export function currency(v: Violations, field: string, raw: string, merchant: Merchant): string | null {
  const code = raw.toUpperCase();
  if (!(CURRENCIES as readonly string[]).includes(code)) v.add(field, `must be one of ${CURRENCIES.join(', ')}`);
  else if (!merchant.currencies.includes(code))
    v.add(field, `${code} is not enabled for this merchant`, ERRORS.currencyNotEnabled);
  else return code;
  return null;
}

/** A decimal amount (number or string, at most two decimals) in minor units, at least `min`. */
export function amount(
  v: Violations,
  field: string,
  raw: unknown,
  opts: { min: 0 | 1; max: number; minReason?: string },
): number | null {
  const p = parseAmount(raw);
  if (!p.ok) v.add(field, p.reason);
  else if (p.minor < opts.min) v.add(field, opts.minReason ?? 'must be greater than 0', ERRORS.amountOutOfRange);
  else if (p.minor > opts.max) v.add(field, 'is above the maximum amount', ERRORS.amountOutOfRange);
  else return p.minor;
  return null;
}

/** The currency the bank's limits are stated in; the gateway has no exchange rates to apply them to others. */
export const BANK_LIMIT_CURRENCY = 'GEL';

/**
 * What a merchant may charge in one payment: the test-mode limit while in test mode, and in the
 * bank profile the bank's per-transaction limit (GEL).
 */
export function chargeLimit(
  v: Violations,
  field: string,
  minor: number,
  currency: string | null,
  merchant: Merchant,
): boolean {
  if (merchant.testMode && minor > merchant.testAmountLimit) {
    v.add(field, 'is above the test-mode limit of this merchant', ERRORS.testModeLimit);
    return false;
  }
  if (merchant.profile === 'bank' && currency === BANK_LIMIT_CURRENCY && minor > merchant.transactionLimit) {
    v.add(
      field,
      `is above the merchant's limit of ${formatMinor(merchant.transactionLimit)} ${BANK_LIMIT_CURRENCY} per transaction`,
      ERRORS.transactionLimit,
    );
    return false;
  }
  return true;
}

/** "ANSI symbols only" text the bank prints on statements (extra, extra2): Windows-1252, ≤ max. */
export function ansiText(v: Violations, field: string, value: string, max: number): string | null {
  if (!isAnsiPrintable(value)) v.add(field, 'must contain only printable ANSI (Windows-1252) characters');
  else if (charLength(value) > max) v.add(field, `must be at most ${max} characters`);
  else return value;
  return null;
}

/** Free text in any script (description, merchantPaymentId, names): no control characters, no
 * lone surrogates, at most `max` characters. */
export function plainText(v: Violations, field: string, value: string, max: number): string | null {
  if (!isWellFormedText(value)) v.add(field, 'must be valid Unicode text (no lone surrogates)');
  else if (hasControlCharacter(value)) v.add(field, 'must not contain control characters');
  else if (charLength(value) > max) v.add(field, `must be at most ${max} characters`);
  else if (cardNumbersIn(value).length) v.add(field, 'must not contain a card number (card numbers are never stored)');
  else return value;
  return null;
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/;
const daysIn = (year: number, month: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

/**
 * An ISO 8601 date or date-time naming an instant the database can hold: a day of the calendar
 * (JavaScript reads 2026-02-30 as 2 March), in the years 1 to 9999 (JavaScript reads year 0 and
 * PostgreSQL refuses it). The one rule for every date a client sends (filters, cursors).
 */
export function parseIsoInstant(raw: string): Date | null {
  const m = ISO_DAY.exec(raw);
  const d = new Date(raw);
  const [year, month, day] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  const real = m !== null && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
  return real && !Number.isNaN(d.getTime()) && d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999 ? d : null;
}

/** parseIsoInstant as a field rule. */
export function isoInstant(v: Violations, field: string, raw: string): Date | null {
  const d = parseIsoInstant(raw);
  if (!d) v.add(field, 'must be an ISO 8601 date or date-time between the years 1 and 9999');
  return d;
}

/**
 * An absolute http(s) URL. Control characters (CR/LF above all) are refused: the URL standard would
 * silently drop some of them, and the address later becomes a Location header. Other non-ASCII text
 * (a Georgian path, an internationalised host) is kept and percent-encoded when it is redirected to.
 */
export function httpUrl(v: Violations, field: string, value: string): string | null {
  if (value.length > POLICY.urlMaxLength || !isWellFormedText(value) || !isHttpUrl(value))
    v.add(field, 'must be an absolute http(s) URL');
  else if (hasControlCharacter(value))
    v.add(field, 'must be an absolute http(s) URL without control characters (CR, LF, tab…)');
  else return value;
  return null;
}

/** MMYY, month 01–12, not before the current month in the time zone. */
export function futureMonth(
  v: Violations,
  field: string,
  value: string,
  now: Date,
  timeZone: string,
  pastRule = ERRORS.invalidRequest,
): string | null {
  const ym = parseMmYy(value);
  if (!ym) v.add(field, 'must be MMYY with a month from 01 to 12');
  else if (isMonthInPast(ym, now, timeZone)) v.add(field, 'must not be in the past', pastRule);
  else return value;
  return null;
}

/** One of a few words, any case; the canonical (upper- or lower-case) word. */
export function oneOf<T extends string>(v: Violations, field: string, value: string, allowed: readonly T[]): T | null {
  const hit = allowed.find((a) => a.toLowerCase() === value.toLowerCase());
  if (hit === undefined)
    v.add(field, `must be ${allowed.slice(0, -1).join(', ')}${allowed.length > 1 ? ' or ' : ''}${allowed.at(-1)}`);
  return hit ?? null;
}
