// What must hold in the database after any fault: what a client was told happened happened exactly
// once, nothing is left half-done once the reconciler ran, and every final status reached the
// merchant. Shared by the crash, outage and multi-process suites.
import assert from 'node:assert/strict';
import { TEST_CARDS } from '../../src/acquirer/simulation/test-cards.ts';
import { callbackId } from '../../src/callbacks/ids.ts';
import type { Queryable } from '../../src/store/db.ts';
import type { Receiver } from '../../src/testing/receiver.ts';
import type { LoadRecord } from './load.ts';

const IN_FLIGHT = ['Processing', 'CancelPaymentProcessing', 'PaymentCompletionProcessing'];

/** Waits until no payment or operation is in a processing status (the reconciler's work). */
export async function waitUntilSettled(db: Queryable, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM payments WHERE status = ANY($1)) + (SELECT count(*) FROM payment_operations WHERE status = 'processing') AS n`,
      [IN_FLIGHT],
    );
    if (Number(rows[0]!.n) === 0) return;
    if (Date.now() > end) assert.fail(`${rows[0]!.n} payments or operations still processing after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits until every final event's callback is delivered; returns how many there are. */
export async function waitForCallbacks(db: Queryable, rx: Receiver, timeoutMs: number): Promise<number> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query<{ event_id: string; status: string | null }>(
      `SELECT e.id AS event_id, d.status, d.attempts, d.last_status, d.last_error, d.next_attempt_at, e.created_at
       FROM payment_events e LEFT JOIN callback_deliveries d ON d.event_id = e.id WHERE e.final`,
    );
    const received = new Set(rx.received.map((r) => r.headers['x-callback-id']));
    const missing = rows.filter((r) => r.status !== 'delivered' || !received.has(callbackId(Number(r.event_id))));
    if (missing.length === 0) return rows.length;
    if (Date.now() > end)
      assert.fail(
        `${missing.length} of ${rows.length} final events without a delivered callback, e.g. ${JSON.stringify(missing.slice(0, 3))}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Every acknowledged create and refund exists exactly once; nothing exists twice. */
export async function checkExactlyOnce(db: Queryable, rec: LoadRecord): Promise<void> {
  const { rows: payments } = await db.query<{
    merchant_payment_id: string;
    pay_id: string;
    status: string;
    amount: string;
    returned_amount: string;
  }>(
    'SELECT merchant_payment_id, pay_id, status, amount, returned_amount FROM payments WHERE merchant_payment_id IS NOT NULL',
  );
  const byKey = new Map<string, typeof payments>();
  for (const p of payments) byKey.set(p.merchant_payment_id, [...(byKey.get(p.merchant_payment_id) ?? []), p]);
  for (const [key, list] of byKey)
    assert.equal(list.length, 1, `merchantPaymentId ${key} created ${list.length} times`);
  for (const c of rec.creates)
    assert.equal(byKey.get(c.key)?.[0]?.pay_id, c.payId, `acknowledged create ${c.key} → ${c.payId} not found`);

  const { rows: ops } = await db.query<{ pay_id: string; n: string; total: string }>(
    `SELECT pay_id, count(*) AS n, sum(amount) AS total FROM payment_operations WHERE kind = 'refund' AND status = 'done' GROUP BY pay_id`,
  );
  const refunds = new Map(ops.map((o) => [o.pay_id, o]));
  // The load refunds each payment once, in full: at most one refund per payment, and the payment's
  // returned amount is exactly what its refunds returned.
  for (const o of ops) assert.equal(Number(o.n), 1, `payment ${o.pay_id} refunded ${o.n} times`);
  for (const p of payments)
    assert.equal(
      BigInt(p.returned_amount),
      BigInt(refunds.get(p.pay_id)?.total ?? 0),
      `payment ${p.pay_id} returned_amount`,
    );
  const byPayId = new Map(payments.map((p) => [p.pay_id, p]));
  for (const r of rec.refunds) {
    assert.ok(refunds.has(r.payId), `acknowledged refund of ${r.payId} not found`);
    assert.equal(byPayId.get(r.payId)!.status, 'Returned');
    assert.equal(byPayId.get(r.payId)!.returned_amount, byPayId.get(r.payId)!.amount);
  }
}

/** Every status change of a payment is one event: the per-payment sequence has no gap or repeat. */
export async function checkEventSequences(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ pay_id: string; n: string; max: number; distinct_seq: string }>(
    'SELECT pay_id, count(*) AS n, max(seq) AS max, count(DISTINCT seq) AS distinct_seq FROM payment_events GROUP BY pay_id',
  );
  for (const r of rows) {
    assert.equal(Number(r.distinct_seq), Number(r.n), `payment ${r.pay_id}: an event sequence number repeats`);
    assert.equal(Number(r.max), Number(r.n), `payment ${r.pay_id}: event sequence has a gap`);
  }
  return rows.length;
}

/** Searches a dump of every table and the given log text for the sandbox card numbers. */
export async function checkNoCardData(db: Queryable, logs: string): Promise<{ rows: number; logBytes: number }> {
  const { rows: tables } = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const numbers = Object.keys(TEST_CARDS);
  let dumped = 0;
  for (const { table_name } of tables) {
    const { rows } = await db.query<{ j: string }>(`SELECT row_to_json(t)::text AS j FROM "${table_name}" t`);
    dumped += rows.length;
    for (const r of rows) for (const n of numbers) assert.ok(!r.j.includes(n), `${table_name} holds card number ${n}`);
  }
  for (const n of numbers) assert.ok(!logs.includes(n), `the logs hold card number ${n}`);
  assert.doesNotMatch(logs, /"(cvc|cvv|securityCode|security_code)"\s*:\s*"\d{3,4}"/, 'the logs hold a security code');
  return { rows: dumped, logBytes: logs.length };
}
