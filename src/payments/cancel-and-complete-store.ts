// SQL for the payment_operations rows of cancels and completions (cancel-and-complete.ts): one function per
// statement. Each runs on the Queryable it is given, so it joins the caller's transaction (the
// payment row locked, its event written by moveOne in the same transaction).
import type { Queryable } from '../store/db.ts';
import type { PaymentRow } from './row.ts';
import type { EarlierOperation } from './rules/cancel.ts';
import type { Status } from './state-machine.ts';
import type { JoinedChange } from './store.ts';

export type OperationKind = 'refund' | 'void' | 'capture';

export interface OperationRow {
  id: number;
  pay_id: string;
  kind: OperationKind;
  amount: number;
  split_amount: number | null;
  status: 'processing' | 'done' | 'refused';
  prev_status: Status;
  reference: string;
}

export interface NewOperation {
  payId: string;
  kind: OperationKind;
  amount: number;
  splitAmount: number | null;
  /** The payment's status before the operation: where a refusal puts it back. */
  prevStatus: Status;
  businessDay: string;
  now: Date;
}

/**
 * Records an operation as processing; its reference is "<payId>.<kind>.<n>", n counting the
 * payment's operations. The kind is typed: used for its column (a domain, migration 025) and in the
 * reference, PostgreSQL would deduce two types for one parameter and refuse the statement.
 */
export async function insertOperation(q: Queryable, op: NewOperation): Promise<OperationRow> {
  const { rows } = await q.query<OperationRow>(
    `INSERT INTO payment_operations (pay_id, kind, amount, split_amount, status, prev_status, business_day, reference, created_at, updated_at)
     VALUES ($1, $2::text, $3, $4, 'processing', $5, $6, $1 || '.' || $2 || '.' || (SELECT count(*) + 1 FROM payment_operations WHERE pay_id = $1), $7, $7)
     RETURNING *`,
    [op.payId, op.kind, op.amount, op.splitAmount, op.prevStatus, op.businessDay, op.now],
  );
  return rows[0]!;
}

/** insertOperation joined to the payment's move (moveOneJoined): recorded only if it moved. */
export function insertOperationJoined(op: NewOperation): JoinedChange {
  return (param) => {
    // Typed: a parameter in a SELECT list has no column to take its type from.
    const kind = `${param(op.kind)}::text`;
    const now = `${param(op.now)}::timestamptz`;
    return `INSERT INTO payment_operations (pay_id, kind, amount, split_amount, status, prev_status, business_day, reference, created_at, updated_at)
      SELECT u.pay_id, ${kind}, ${param(op.amount)}::bigint, ${param(op.splitAmount)}::bigint, 'processing', ${param(op.prevStatus)}::text,
        ${param(op.businessDay)}::text, u.pay_id || '.' || ${kind} || '.' || (SELECT count(*) + 1 FROM payment_operations o WHERE o.pay_id = u.pay_id),
        ${now}, ${now}
      FROM u RETURNING id, reference`;
  };
}

/** The new operation's id and reference, as insertOperationJoined returns them. */
export function openedOperation(joined: unknown, op: NewOperation): OperationRow {
  if (
    typeof joined !== 'object' ||
    joined === null ||
    !('id' in joined) ||
    typeof joined.id !== 'number' ||
    !('reference' in joined) ||
    typeof joined.reference !== 'string'
  )
    throw new Error(`the operation's insert returned ${JSON.stringify(joined)}`);
  return {
    id: joined.id,
    reference: joined.reference,
    pay_id: op.payId,
    kind: op.kind,
    amount: op.amount,
    split_amount: op.splitAmount,
    status: 'processing',
    prev_status: op.prevStatus,
  };
}

/** markOperationDone joined to the payment's move (moveOneJoined): done only if it moved. */
export function markOperationDoneJoined(opId: number, now: Date): JoinedChange {
  return (param) =>
    `UPDATE payment_operations SET status = 'done', updated_at = ${param(now)}
     WHERE id = ${param(opId)} AND status = 'processing' AND EXISTS (SELECT 1 FROM u) RETURNING id`;
}

/** The payment and what the operation window's rules need of its operations, read together without a lock. */
export async function selectForOperation(
  q: Queryable,
  payId: string,
): Promise<{ row: PaymentRow; earlier: EarlierOperation[] } | null> {
  const { rows } = await q.query<PaymentRow & { earlier: EarlierOperation[] }>(
    `SELECT p.*, coalesce((SELECT json_agg(json_build_object('kind', o.kind, 'status', o.status, 'business_day', o.business_day))
       FROM payment_operations o WHERE o.pay_id = p.pay_id), '[]'::json) AS earlier
     FROM payments p WHERE p.pay_id = $1`,
    [payId],
  );
  if (!rows[0]) return null;
  const { earlier, ...row } = rows[0];
  return { row, earlier };
}

export async function lockOperation(q: Queryable, opId: number): Promise<OperationRow> {
  const { rows } = await q.query<OperationRow>('SELECT * FROM payment_operations WHERE id = $1 FOR UPDATE', [opId]);
  return rows[0]!;
}

export async function markOperationDone(q: Queryable, opId: number, now: Date): Promise<void> {
  await q.query(`UPDATE payment_operations SET status = 'done', updated_at = $2 WHERE id = $1`, [opId, now]);
}

export async function markOperationRefused(q: Queryable, opId: number, resultCode: string, now: Date): Promise<void> {
  await q.query(`UPDATE payment_operations SET status = 'refused', result_code = $2, updated_at = $3 WHERE id = $1`, [
    opId,
    resultCode,
    now,
  ]);
}

/** The payment's latest operation still processing (the acquirer's answer not applied yet), if any. */
export async function selectProcessingOperation(q: Queryable, payId: string): Promise<OperationRow | null> {
  const { rows } = await q.query<OperationRow>(
    `SELECT * FROM payment_operations WHERE pay_id = $1 AND status = 'processing' ORDER BY id DESC LIMIT 1`,
    [payId],
  );
  return rows[0] ?? null;
}

/** What the operation window's rules need of the payment's operations so far. */
export async function selectEarlierOperations(q: Queryable, payId: string): Promise<EarlierOperation[]> {
  const { rows } = await q.query<EarlierOperation>(
    'SELECT kind, status, business_day FROM payment_operations WHERE pay_id = $1',
    [payId],
  );
  return rows;
}
