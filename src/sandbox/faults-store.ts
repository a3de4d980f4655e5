// SQL for the sandbox's faults on demand (faults.ts): the faults a merchant set (sandbox_faults)
// and the operations each one struck (sandbox_fault_hits).
import type { Queryable } from '../store/db.ts';
import type { Fault, FaultOperation, FaultOutcome } from './faults.ts';

interface FaultRow {
  id: string | number;
  operation: FaultOperation;
  outcome: FaultOutcome;
  times: number;
  remaining: number;
  created_at: Date;
}

const toFault = (r: FaultRow): Fault => ({
  id: Number(r.id),
  operation: r.operation,
  outcome: r.outcome,
  times: r.times,
  remaining: r.remaining,
  createdAt: r.created_at.toISOString(),
});

export async function insertFault(
  q: Queryable,
  clientId: string,
  operation: FaultOperation,
  outcome: FaultOutcome,
  times: number,
  now: Date,
): Promise<Fault> {
  const { rows } = await q.query<FaultRow>(
    'INSERT INTO sandbox_faults (client_id, operation, outcome, times, remaining, created_at) VALUES ($1, $2, $3, $4, $4, $5) RETURNING *',
    [clientId, operation, outcome, times, now],
  );
  return toFault(rows[0]!);
}

/** The merchant's faults still waiting for an operation, oldest first (the order they are used in). */
export async function selectOpenFaults(q: Queryable, clientId: string): Promise<Fault[]> {
  const { rows } = await q.query<FaultRow>(
    'SELECT * FROM sandbox_faults WHERE client_id = $1 AND remaining > 0 ORDER BY id',
    [clientId],
  );
  return rows.map(toFault);
}

/** Drops the merchant's waiting faults; returns how many there were. */
export async function clearFaults(q: Queryable, clientId: string): Promise<number> {
  const { rowCount } = await q.query('UPDATE sandbox_faults SET remaining = 0 WHERE client_id = $1 AND remaining > 0', [
    clientId,
  ]);
  return rowCount ?? 0;
}

/**
 * Whether the merchant of payment `payId` (conformance-run payments excepted) has a fault of
 * `operation` waiting: a read, where takeFault is a statement that may write. Most operations meet
 * no fault, and find that out without taking part in a transaction.
 */
export async function faultWaiting(q: Queryable, payId: string, operation: FaultOperation): Promise<boolean> {
  const { rows } = await q.query<{ waiting: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM sandbox_faults f JOIN payments p ON p.client_id = f.client_id
       WHERE p.pay_id = $1 AND p.conformance_run IS NULL AND f.operation = $2 AND f.remaining > 0) AS waiting`,
    [payId, operation],
  );
  return rows[0]?.waiting === true;
}

/**
 * Takes the oldest waiting fault of `operation` for the merchant of payment `payId` (conformance-run
 * payments excepted), once per reference: a repeated call for a reference already struck (the
 * reconciler asking again) takes nothing. One statement: the fault row is locked, the hit recorded
 * and the count lowered together, so several gateway processes never give one fault to two
 * operations, or two faults to one.
 */
export async function takeFault(
  q: Queryable,
  payId: string,
  reference: string,
  operation: FaultOperation,
  now: Date,
): Promise<FaultOutcome | null> {
  const { rows } = await q.query<{ outcome: FaultOutcome }>(
    `WITH pick AS (
       SELECT f.id, f.outcome FROM sandbox_faults f JOIN payments p ON p.client_id = f.client_id
       WHERE p.pay_id = $1 AND p.conformance_run IS NULL AND f.operation = $2 AND f.remaining > 0
         AND NOT EXISTS (SELECT 1 FROM sandbox_fault_hits h WHERE h.reference = $3)
       ORDER BY f.id LIMIT 1 FOR UPDATE OF f),
     hit AS (
       INSERT INTO sandbox_fault_hits (reference, fault_id, outcome, created_at) SELECT $3, id, outcome, $4 FROM pick
       ON CONFLICT (reference) DO NOTHING RETURNING fault_id, outcome),
     used AS (UPDATE sandbox_faults f SET remaining = f.remaining - 1 FROM hit WHERE f.id = hit.fault_id RETURNING f.id)
     SELECT outcome FROM hit`,
    [payId, operation, reference, now],
  );
  return rows[0]?.outcome ?? null;
}
