// SQL for payments: one function per database operation. Each status change writes its
// payment_events row in the same statement, so the outbox can never miss or invent a change.
import type { Queryable } from '../store/db.ts';
import type { PaymentRow } from './row.ts';
import { STATUS, isFinal, type Status } from './statuses.ts';
import type { NewPayment } from './validation.ts';

export interface InsertPayment {
  payId: string;
  clientId: string;
  recId: string | null;
  /** A saved-card charge: the card used and who initiated it. */
  charge?: { recId: string; initiator: 'client' | 'merchant' };
  payment: NewPayment;
  now: Date;
  expiresAt: Date;
}

/**
 * Inserts a Created payment: one prepared statement, one round trip. Creation is the initial state,
 * not a change, so it writes no event; the first event (seq 1) is the first status change.
 */
export async function insertPayment(q: Queryable, p: InsertPayment): Promise<void> {
  const n = p.payment;
  await q.query(
    `INSERT INTO payments (pay_id, client_id, status, currency, amount, subtotal, tax, shipping, return_url,
       callback_url, extra, extra2, split_iban, split_amount, split_returned_amount, user_ip, expiration_minutes,
       expires_at, methods, installment_products, pre_auth, language, merchant_payment_id, skip_info_message,
       save_card, save_card_to_date, rec_id, description, created_at, updated_at, charged_rec_id, initiator)
     VALUES ($1,$2,'Created',$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28,$28,$29,$30)`,
    [
      p.payId, p.clientId, n.currency, n.amount, n.subtotal, n.tax, n.shipping, n.returnUrl,
      n.callbackUrl, n.extra, n.extra2, n.split?.iban ?? null, n.split?.amount ?? null, n.split ? 0 : null, n.userIp,
      n.expirationMinutes, p.expiresAt, n.methods,
      n.installmentProducts ? JSON.stringify(n.installmentProducts) : null, n.preAuth, n.language,
      n.merchantPaymentId, n.skipInfoMessage, n.saveCard, n.saveCardToDate, p.recId, n.description, p.now,
      p.charge?.recId ?? null, p.charge?.initiator ?? 'client',
    ],
    'insert_payment',
  );
}

/** A merchant's payment; another merchant's payId finds nothing, exactly like an unknown one. */
export async function selectPayment(q: Queryable, clientId: string, payId: string): Promise<PaymentRow | null> {
  const { rows } = await q.query<PaymentRow>('SELECT * FROM payments WHERE pay_id = $1 AND client_id = $2', [payId, clientId], 'select_payment');
  return rows[0] ?? null;
}

/** Any merchant's payment (the customer's side: checkout page, sandbox simulate). */
export async function selectPaymentById(q: Queryable, payId: string): Promise<PaymentRow | null> {
  const { rows } = await q.query<PaymentRow>('SELECT * FROM payments WHERE pay_id = $1', [payId], 'select_payment_by_id');
  return rows[0] ?? null;
}

/** Locks the payment row for the rest of the transaction. */
export async function lockPayment(q: Queryable, payId: string): Promise<PaymentRow | null> {
  const { rows } = await q.query<PaymentRow>('SELECT * FROM payments WHERE pay_id = $1 FOR UPDATE', [payId]);
  return rows[0] ?? null;
}

/**
 * Moves a payment locked by the caller from `from` to `to` and appends the event. Returns the new
 * event sequence, or null when the row was not in `from` (the caller's check was stale).
 */
export async function transition(q: Queryable, payId: string, from: Status, to: Status, now: Date): Promise<number | null> {
  const { rows } = await q.query<{ seq: number }>(
    `WITH u AS (
       UPDATE payments SET status = $3, event_seq = event_seq + 1, updated_at = $4
       WHERE pay_id = $1 AND status = $2 RETURNING pay_id, event_seq)
     INSERT INTO payment_events (pay_id, seq, status, final, created_at)
     SELECT pay_id, event_seq, $3, $5, $4 FROM u RETURNING seq`,
    [payId, from, to, now, isFinal(to)],
  );
  return rows[0]?.seq ?? null;
}

/**
 * Moves every payment in `from` whose `due` time has passed to `to` (at most `limit` per call),
 * with its event. Rows another transaction holds are skipped, so several processes can sweep and
 * a customer paying right now is never swept from under its lock.
 */
async function sweepDue(q: Queryable, from: Status, to: Status, due: 'expires_at' | 'pre_auth_expires_at', alsoSet: string, now: Date, limit: number): Promise<string[]> {
  const { rows } = await q.query<{ pay_id: string }>(
    `WITH due AS (
       SELECT pay_id FROM payments WHERE status = $3 AND ${due} <= $1
       ORDER BY ${due} LIMIT $2 FOR UPDATE SKIP LOCKED),
     u AS (
       UPDATE payments p SET status = $4, ${alsoSet} event_seq = p.event_seq + 1, updated_at = $1
       FROM due WHERE p.pay_id = due.pay_id RETURNING p.pay_id, p.event_seq)
     INSERT INTO payment_events (pay_id, seq, status, final, created_at)
     SELECT pay_id, event_seq, $4, true, $1 FROM u RETURNING pay_id`,
    [now, limit, from, to],
  );
  return rows.map((r) => r.pay_id);
}

/** Created payments past expirationMinutes become Expired. */
export const expireDue = (q: Queryable, now: Date, limit: number) => sweepDue(q, STATUS.created, STATUS.expired, 'expires_at', '', now, limit);

/** Pre-authorisations past their block window become Returned, everything released. */
export const releaseExpiredBlocks = (q: Queryable, now: Date, limit: number) =>
  sweepDue(
    q,
    STATUS.waitingConfirm,
    STATUS.returned,
    'pre_auth_expires_at',
    'returned_amount = p.amount, split_returned_amount = CASE WHEN p.split_iban IS NULL THEN NULL ELSE p.split_amount END,',
    now,
    limit,
  );

export async function selectEvents(q: Queryable, payId: string): Promise<{ seq: number; status: Status; final: boolean; created_at: Date }[]> {
  const { rows } = await q.query<{ seq: number; status: Status; final: boolean; created_at: Date }>(
    'SELECT seq, status, final, created_at FROM payment_events WHERE pay_id = $1 ORDER BY seq',
    [payId],
  );
  return rows;
}


/** Columns an operation may change besides the status (the names of PaymentRow). */
export type PaymentPatch = Partial<
  Pick<
    PaymentRow,
    | 'attempts'
    | 'payment_method'
    | 'transaction_id'
    | 'rrn'
    | 'result_code'
    | 'card_mask'
    | 'card_expiry'
    | 'challenge_id'
    | 'pre_auth_expires_at'
    | 'confirmed_amount'
    | 'returned_amount'
    | 'split_returned_amount'
    | 'paid_at'
  >
>;

const PATCHABLE = new Set<string>([
  'attempts', 'payment_method', 'transaction_id', 'rrn', 'result_code', 'card_mask', 'card_expiry',
  'challenge_id', 'pre_auth_expires_at', 'confirmed_amount', 'returned_amount', 'split_returned_amount', 'paid_at',
]);

/** Extra conditions of an update that takes its own row lock (see updatePayment). */
export interface UpdateGuard {
  /** Take the row lock in this statement (SELECT … FOR UPDATE in a CTE): the update is then one
   * self-contained transaction, needing no explicit BEGIN/lock/COMMIT round trips. */
  lock: true;
  /** Only while the payment is still on this attempt. */
  attempts?: number;
}

/**
 * Changes a payment found in `from`: the patch, and when `to` differs from `from` the status and
 * its event, in one statement. Without a guard the caller holds the row lock; with one the
 * statement locks the row itself. Returns the updated row, or null when the row was no longer in
 * `from` (or no longer on the guarded attempt).
 */
export async function updatePayment(q: Queryable, payId: string, from: Status, to: Status, patch: PaymentPatch, now: Date, guard?: UpdateGuard): Promise<PaymentRow | null> {
  const params: unknown[] = [payId, from, to, now];
  const sets = ['status = $3', 'updated_at = $4'];
  for (const [column, value] of Object.entries(patch)) {
    if (!PATCHABLE.has(column)) throw new Error(`not a patchable payment column: ${column}`);
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  let target = 'WHERE pay_id = $1 AND status = $2';
  let lock = '';
  if (guard) {
    let attempt = '';
    if (guard.attempts !== undefined) {
      params.push(guard.attempts);
      attempt = ` AND attempts = $${params.length}`;
    }
    lock = `cur AS (SELECT pay_id FROM payments WHERE pay_id = $1 AND status = $2${attempt} FOR UPDATE), `;
    target = 'FROM cur WHERE payments.pay_id = cur.pay_id';
  }
  if (from === to) {
    const { rows } = await q.query<PaymentRow>(`${lock ? `WITH ${lock.slice(0, -2)} ` : ''}UPDATE payments SET ${sets.join(', ')} ${target} RETURNING payments.*`, params);
    return rows[0] ?? null;
  }
  params.push(isFinal(to));
  const { rows } = await q.query<PaymentRow>(
    `WITH ${lock}u AS (
       UPDATE payments SET ${sets.join(', ')}, event_seq = event_seq + 1 ${target} RETURNING payments.*),
     e AS (INSERT INTO payment_events (pay_id, seq, status, final, created_at) SELECT pay_id, event_seq, status, $${params.length}, $4 FROM u)
     SELECT * FROM u`,
    params,
  );
  return rows[0] ?? null;
}

/**
 * Created → Processing for a new attempt with `method`, in one statement that locks the row, when
 * the payment is open, unexpired and offers the method; null otherwise (the caller then looks at
 * why in a transaction of its own).
 */
export async function startAttempt(q: Queryable, payId: string, method: number, now: Date): Promise<PaymentRow | null> {
  const { rows } = await q.query<PaymentRow>(
    `WITH cur AS (
       SELECT pay_id FROM payments WHERE pay_id = $1 AND status = 'Created' AND expires_at > $3 AND $2 = ANY (methods) FOR UPDATE),
     u AS (
       UPDATE payments SET status = 'Processing', attempts = attempts + 1, payment_method = $2, challenge_id = NULL,
         event_seq = event_seq + 1, updated_at = $3
       FROM cur WHERE payments.pay_id = cur.pay_id RETURNING payments.*),
     e AS (INSERT INTO payment_events (pay_id, seq, status, final, created_at) SELECT pay_id, event_seq, status, false, $3 FROM u)
     SELECT * FROM u`,
    [payId, method, now],
    'start_attempt',
  );
  return rows[0] ?? null;
}

/** Payments that have been Processing since before `before` (for the reconciler). */
export async function selectStuckProcessing(q: Queryable, before: Date, limit: number): Promise<{ pay_id: string; attempts: number }[]> {
  const { rows } = await q.query<{ pay_id: string; attempts: number }>(
    `SELECT pay_id, attempts FROM payments WHERE status = 'Processing' AND updated_at <= $1 ORDER BY updated_at LIMIT $2`,
    [before, limit],
  );
  return rows;
}

/** Payments whose cancel or completion has been processing since before `before`. */
export async function selectStuckOperations(q: Queryable, before: Date, limit: number): Promise<string[]> {
  const { rows } = await q.query<{ pay_id: string }>(
    `SELECT pay_id FROM payments WHERE status IN ('CancelPaymentProcessing', 'PaymentCompletionProcessing') AND updated_at <= $1 ORDER BY updated_at LIMIT $2`,
    [before, limit],
  );
  return rows.map((r) => r.pay_id);
}
