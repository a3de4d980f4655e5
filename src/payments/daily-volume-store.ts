// SQL for the bank profile's daily volume (daily-volume.ts): each merchant's total per business
// day (merchant_daily_volume) and the day a payment was counted on (payments.limit_day).
import type { Queryable } from '../store/db.ts';

/**
 * Adds `amount` to the merchant's total of `day` unless that would pass `limit`: one conditional
 * upsert, so concurrent callers queue on the merchant's row for the day and each sees the total the
 * one before left. False (nothing added) when it would pass the limit.
 */
export async function addDailyVolume(
  q: Queryable,
  clientId: string,
  day: string,
  amount: number,
  limit: number,
): Promise<boolean> {
  const { rows } = await q.query<{ total: number }>(
    `INSERT INTO merchant_daily_volume (client_id, business_day, total) SELECT $1, $2, $3::bigint WHERE $3::bigint <= $4::bigint
     ON CONFLICT (client_id, business_day) DO UPDATE SET total = merchant_daily_volume.total + EXCLUDED.total
     WHERE merchant_daily_volume.total + EXCLUDED.total <= $4::bigint
     RETURNING total`,
    [clientId, day, amount, limit],
  );
  return rows.length > 0;
}

/** The merchant's total of the day (minor units), 0 when nothing was counted. */
export async function selectDailyVolume(q: Queryable, clientId: string, day: string): Promise<number> {
  const { rows } = await q.query<{ total: number }>(
    'SELECT total FROM merchant_daily_volume WHERE client_id = $1 AND business_day = $2',
    [clientId, day],
  );
  return Number(rows[0]?.total ?? 0);
}

/** Records the day the payment was counted on: the day its amount is given back to if it ends without money. */
export async function markLimitDay(q: Queryable, payId: string, day: string): Promise<void> {
  await q.query('UPDATE payments SET limit_day = $2 WHERE pay_id = $1', [payId, day]);
}
