// POST /sandbox/v1/reset's SQL: everything a merchant's sandbox traffic left behind, deleted in one
// transaction — its payments with their events, operations, saved cards, callback deliveries and
// attempts, idempotency keys, daily volumes, request log, faults and conformance runs, and the
// simulated acquirer's records of them. The merchant, its credentials, API keys, settings,
// dashboard users and its clock (which only moves forward) stay.
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import { STATUS } from '../payments/state-machine.ts';
import type { Db, Queryable } from '../store/db.ts';

export interface ResetCounts {
  payments: number;
  savedCards: number;
  callbacks: number;
  requests: number;
  faults: number;
}

/** A payment in one of these statuses waits for the acquirer's answer (or a customer's 3-D Secure code). */
const AT_THE_ACQUIRER: ReadonlySet<string> = new Set([
  STATUS.processing,
  STATUS.cancelProcessing,
  STATUS.completionProcessing,
]);

async function count(q: Queryable, sql: string, params: unknown[]): Promise<number> {
  return (await q.query(sql, params)).rowCount ?? 0;
}

/** The ids a locking SELECT returned (as text: bigserial ids come back as strings from `pg`). */
async function locked(q: Queryable, sql: string, params: unknown[]): Promise<string[]> {
  return (await q.query<{ id: string }>(sql, params)).rows.map((r) => String(r.id));
}

/**
 * Deletes the merchant's sandbox data, or refuses (resetBusy, nothing deleted) while any of its
 * payments is at the acquirer: the request running that operation would come back to a payment that
 * no longer exists (a 500 before issue 26), and a refund the acquirer performed would vanish with
 * it. Waiting instead is no better: a 3-D Secure code or a lost answer can keep a payment Processing
 * for minutes, longer than a request should hold a transaction.
 *
 * What is deleted is exactly what was locked first (payments, callback deliveries, conformance runs,
 * faults), by id: a row another request commits meanwhile (a new payment and its events, a callback
 * attempt, a fault hit) is not half-deleted under its foreign key (23503, a 500), it stays.
 */
export async function resetMerchant(db: Db, clientId: string): Promise<ResetCounts> {
  return db.tx(async (q) => {
    // Lock the merchant row (two resets of one merchant queue) and its payments (a status change in
    // flight finishes first, or waits and then finds its payment gone).
    await q.query('SELECT client_id FROM merchants WHERE client_id = $1 FOR UPDATE', [clientId]);
    const payments = (
      await q.query<{ pay_id: string; status: string }>(
        'SELECT pay_id, status FROM payments WHERE client_id = $1 ORDER BY pay_id FOR UPDATE',
        [clientId],
      )
    ).rows;
    const busy = payments.filter((p) => AT_THE_ACQUIRER.has(p.status));
    if (busy.length) {
      throw gatewayError(ERRORS.resetBusy, {
        detail: `${busy.length} payment(s) of this merchant wait for the acquirer (${busy
          .slice(0, 5)
          .map((p) => `${p.pay_id} ${p.status}`)
          .join(', ')}${busy.length > 5 ? ', …' : ''}); nothing was deleted`,
        retryAfterSeconds: 1,
      });
    }
    const ids = [payments.map((p) => p.pay_id)];
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
    const faultIds = [
      await locked(q, 'SELECT id FROM sandbox_faults WHERE client_id = $1 ORDER BY id FOR UPDATE', one),
    ];
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
  });
}
