// SQL for the payment_operations rows of cancels and completions (cancel-and-complete.ts): one function per
// statement. Each runs on the Queryable it is given, so it joins the caller's transaction (the
// payment row locked, its event written by moveOne in the same transaction).
import type { Queryable } from '../store/db.ts';
import type { EarlierOperation } from './rules/cancel.ts';
import type { Status } from './state-machine.ts';

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

/** Records an operation as processing; its reference is "<payId>.<kind>.<n>", n counting the payment's operations. */
export async function insertOperation(q: Queryable, op: NewOperation): Promise<OperationRow> {
  const { rows } = await q.query<OperationRow>(
    `INSERT INTO payment_operations (pay_id, kind, amount, split_amount, status, prev_status, business_day, reference, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'processing', $5, $6, $1 || '.' || $2 || '.' || (SELECT count(*) + 1 FROM payment_operations WHERE pay_id = $1), $7, $7)
     RETURNING *`,
    [op.payId, op.kind, op.amount, op.splitAmount, op.prevStatus, op.businessDay, op.now],
  );
  return rows[0]!;
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
