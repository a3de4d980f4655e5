// The bank profile's daily limit (docs/bank-profile.md): a merchant's GEL payments of one business
// day may add up to its dailyLimit. A payment is counted in the transaction that creates it, by one
// conditional upsert — concurrent requests, in any number of gateway processes, queue on the
// merchant's row for the day and each sees the total the one before left, so together they can
// never pass the limit. A payment that ends without money (Failed, Expired) gives its amount back
// (a trigger of migration 013, whatever code path fails or expires it).
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { Merchant } from '../merchants/merchant.ts';
import type { Queryable } from '../store/db.ts';
import { businessDay } from './business-day.ts';
import { addDailyVolume, markLimitDay, selectDailyVolume } from './daily-volume-store.ts';
import { formatMinor } from './money.ts';
import { BANK_LIMIT_CURRENCY } from './rules/fields.ts';
import { insertPayment, type InsertPayment } from './store.ts';

/** Whether this payment counts against the merchant's daily limit. */
export const countsDailyVolume = (merchant: Pick<Merchant, 'profile'>, currency: string) =>
  merchant.profile === 'bank' && currency === BANK_LIMIT_CURRENCY;

/**
 * A new payment inserted and, when it counts (countsDailyVolume), added to the merchant's volume of
 * the day, in the caller's transaction; `field` names the amount in the limit's error. When it does
 * not count, the INSERT alone is the whole change: callers without a key to record run it alone.
 */
export async function insertNewPayment(
  q: Queryable,
  merchant: Pick<Merchant, 'clientId' | 'dailyLimit' | 'profile'>,
  row: InsertPayment,
  field: string,
  timeZone: string,
): Promise<void> {
  await insertPayment(q, row);
  if (countsDailyVolume(merchant, row.payment.currency))
    await countDailyVolume(q, merchant, { payId: row.payId, amount: row.payment.amount, field }, row.now, timeZone);
}

/**
 * Adds the payment (already inserted in this transaction) to the merchant's volume of the business
 * day, or throws the daily-limit error (the caller's transaction then rolls the payment back).
 */
export async function countDailyVolume(
  q: Queryable,
  merchant: Pick<Merchant, 'clientId' | 'dailyLimit'>,
  p: { payId: string; amount: number; field: string },
  now: Date,
  timeZone: string,
): Promise<void> {
  const day = businessDay(now, timeZone);
  if (!(await addDailyVolume(q, merchant.clientId, day, p.amount, merchant.dailyLimit))) {
    const taken = await selectDailyVolume(q, merchant.clientId, day);
    const reason = `would take the merchant's ${BANK_LIMIT_CURRENCY} volume of ${day} above its daily limit of ${formatMinor(merchant.dailyLimit)} (${formatMinor(taken)} taken so far)`;
    throw gatewayError(ERRORS.dailyLimit, {
      detail: `The payment ${reason}`,
      fields: [{ field: p.field, reason, rule: ERRORS.dailyLimit }],
    });
  }
  await markLimitDay(q, p.payId, day);
}
