// Split payments (SPEC 4, split variant): a share of the payment goes to a second account, named by
// an IBAN at this bank. The same rules serve create, saved-card execution and cancel.
import { ERRORS } from '../../errors/catalogue.ts';
import type { Violations } from '../../errors/gateway-error.ts';
import type { Merchant } from '../../merchants/merchant.ts';
import { checkSplitIban } from '../iban.ts';
import { isWithinPercent, parseAmount } from '../money.ts';
import { POLICY } from './policy.ts';

export interface SplitShare {
  iban: string;
  /** Minor units. */
  amount: number;
}

/** Something shaped like an IBAN: two letters and two check digits first (spaces ignored). */
const IBAN_SHAPE = /^[a-z]{2}\d{2}/i;

/**
 * A request is a split payment when the merchant is enrolled and `extra` has the shape of an IBAN;
 * an enrolled merchant's free-text `extra` (or an empty one, which SDKs always send) stays standard.
 */
export const isSplitRequest = (merchant: Merchant, extra: string | undefined) =>
  merchant.splitEnrolled && extra !== undefined && IBAN_SHAPE.test(extra.replace(/\s+/g, ''));

/** The share of `total` going to the split account: > 0, not above the total, at most 99% of it. */
export function splitShare(
  v: Violations,
  field: string,
  share: number,
  total: number | null,
  minReason = 'must be greater than 0',
): boolean {
  if (share <= 0) v.add(field, minReason, ERRORS.splitAmountInvalid);
  else if (total !== null && share > total) v.add(field, 'must not exceed the total amount', ERRORS.splitAmountInvalid);
  else if (total !== null && !isWithinPercent(share, total, POLICY.splitMaxPercent)) {
    v.add(field, `must be at most ${POLICY.splitMaxPercent}% of the total amount`, ERRORS.splitAmountInvalid);
  } else return true;
  return false;
}

/** A split payment's currency: GEL only (SPEC 4), for create and for every saved-card charge. */
export function splitCurrency(v: Violations, field: string, currency: string | null): boolean {
  if (currency === null || currency === POLICY.splitCurrency) return true;
  v.add(field, `split payments are ${POLICY.splitCurrency} only`, ERRORS.splitCurrency);
  return false;
}

/**
 * The terms every split payment meets, whichever way it is made (create, saved-card execution):
 * the share fits the total (> 0, ≤ total, ≤ 99%) and the currency is the split currency.
 */
export function splitTerms(
  v: Violations,
  share: { field: string; minor: number },
  total: number | null,
  currency: { field: string; code: string | null },
): boolean {
  const fits = splitShare(v, share.field, share.minor, total);
  return splitCurrency(v, currency.field, currency.code) && fits;
}

/** `extra` (the IBAN) and `extra2` (the amount) of a split create request. */
export function splitRequest(
  v: Violations,
  extra: string,
  extra2: string | undefined,
  total: number | null,
  currency: string | null,
  bankCode: string,
): SplitShare | null {
  let iban: string | null = null;
  const check = checkSplitIban(extra, bankCode);
  if (check.ok) iban = check.iban;
  else v.add('extra', check.reason, check.kind === 'format' ? ERRORS.splitInvalidIban : ERRORS.splitForeignIban);
  let share: number | null = null;
  if (extra2 === undefined) {
    v.add('extra2', 'is required for a split payment (the amount for the IBAN)', ERRORS.splitIncomplete);
    splitCurrency(v, 'amount.currency', currency);
  } else {
    const p = parseAmount(extra2);
    if (!p.ok) {
      v.add('extra2', p.reason, ERRORS.splitAmountInvalid);
      splitCurrency(v, 'amount.currency', currency);
    } else if (splitTerms(v, { field: 'extra2', minor: p.minor }, total, { field: 'amount.currency', code: currency }))
      share = p.minor;
  }
  return iban !== null && share !== null ? { iban, amount: share } : null;
}
