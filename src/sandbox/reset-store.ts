// POST /sandbox/v1/reset's SQL (the rule is reset.ts's): everything a merchant's sandbox traffic left behind, deleted in one
// transaction — its payments with their events, operations, saved cards, callback deliveries and
// attempts, idempotency keys, daily volumes, request log, faults and conformance runs, and the
// simulated acquirer's records of them. The merchant, its credentials, API keys, settings,
// dashboard users and its clock (which only moves forward) stay.
import type { Queryable } from '../store/db.ts';

export interface ResetCounts {
  payments: number;
  savedCards: number;
  callbacks: number;
  requests: number;
  faults: number;
}

async function count(q: Queryable, sql: string, params: unknown[]): Promise<number> {
  return (await q.query(sql, params)).rowCount ?? 0;
}

/** The ids a locking SELECT returned (as text: bigserial ids come back as strings from `pg`). */
async function locked(q: Queryable, sql: string, params: unknown[]): Promise<string[]> {
  return (await q.query<{ id: string }>(sql, params)).rows.map((r) => String(r.id));
}

/**
 * Locks the merchant row (two resets of one merchant queue) and its payments (a status change in
 * flight finishes first, or waits and then finds its payment gone); returns the payments.
 */
export async function lockMerchantPayments(
  q: Queryable,
  clientId: string,
): Promise<{ pay_id: string; status: string }[]> {
  await q.query('SELECT client_id FROM merchants WHERE client_id = $1 FOR UPDATE', [clientId]);
  const { rows } = await q.query<{ pay_id: string; status: string }>(
    'SELECT pay_id, status FROM payments WHERE client_id = $1 ORDER BY pay_id FOR UPDATE',
    [clientId],
  );
  return rows;
}

/**
 * Deletes the merchant's sandbox data: its payments `payIds` (locked by lockMerchantPayments in the
 * same transaction) and everything hanging from them and from the merchant.
 */
export async function deleteSandboxData(q: Queryable, clientId: string, payIds: string[]): Promise<ResetCounts> {
  const ids = [payIds];
  const one = [clientId];
  // Rows that other transactions lock several at a time are locked here first, in their order:
  // the daily volumes before the idempotency keys (a keyed create counts its volume, then records
  // its key), the callback deliveries by event id (bulk redelivery). Deleting them in scan order
  // could take them in the opposite order and deadlock.
  await q.query(
    'SELECT business_day FROM merchant_daily_volume WHERE client_id = $1 ORDER BY business_day FOR UPDATE',
    one,
  );
  const events = [
    await locked(
      q,
      'SELECT event_id AS id FROM callback_deliveries WHERE client_id = $1 ORDER BY event_id FOR UPDATE',
      one,
    ),
  ];
  const runs = [
    await locked(q, 'SELECT run_id AS id FROM conformance_runs WHERE client_id = $1 ORDER BY run_id FOR UPDATE', one),
  ];
  const faultIds = [await locked(q, 'SELECT id FROM sandbox_faults WHERE client_id = $1 ORDER BY id FOR UPDATE', one)];
  await q.query('DELETE FROM callback_attempts WHERE event_id = ANY ($1::bigint[])', events);
  const callbacks = await count(q, 'DELETE FROM callback_deliveries WHERE event_id = ANY ($1::bigint[])', events);
  await q.query('DELETE FROM conformance_fetches WHERE run_id = ANY ($1::text[])', runs);
  await q.query('DELETE FROM conformance_probes WHERE client_id = $1', one);
  await q.query('DELETE FROM conformance_runs WHERE run_id = ANY ($1::text[])', runs);
  await q.query('DELETE FROM sandbox_fault_hits WHERE fault_id = ANY ($1::bigint[])', faultIds);
  const faults = await count(q, 'DELETE FROM sandbox_faults WHERE id = ANY ($1::bigint[])', faultIds);
  await q.query(
    'DELETE FROM sim_card_tokens WHERE token IN (SELECT card_token FROM saved_cards WHERE pay_id = ANY ($1::text[]))',
    ids,
  );
  // Attempt references are "<payId>.<attempt>" (payments/attempt.ts).
  await q.query(`DELETE FROM sim_authorisations WHERE split_part(reference, '.', 1) = ANY ($1::text[])`, ids);
  await q.query(
    'DELETE FROM sim_operations WHERE reference IN (SELECT reference FROM payment_operations WHERE pay_id = ANY ($1::text[]))',
    ids,
  );
  const savedCards = await count(q, 'DELETE FROM saved_cards WHERE pay_id = ANY ($1::text[])', ids);
  await q.query('DELETE FROM payment_operations WHERE pay_id = ANY ($1::text[])', ids);
  await q.query('DELETE FROM payment_events WHERE pay_id = ANY ($1::text[])', ids);
  await q.query('DELETE FROM idempotency_keys WHERE client_id = $1', one);
  await q.query('DELETE FROM merchant_daily_volume WHERE client_id = $1', one);
  const requests = await count(q, 'DELETE FROM merchant_requests WHERE client_id = $1', one);
  const deleted = await count(q, 'DELETE FROM payments WHERE pay_id = ANY ($1::text[])', ids);
  return { payments: deleted, savedCards, callbacks, requests, faults };
}
