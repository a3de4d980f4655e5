// Faults on demand (sandbox only): a merchant asks that its next n operations of a kind fail —
// declined, performed with the answer lost, or failed without being performed — and a wrapper
// around the acquirer (like instrumented.ts) makes them fail that way. The faults live in the
// database and each acquirer call takes one with a single statement, so several gateway processes
// never give one fault to two operations, or two faults to one.
import type { Clock } from '../clock.ts';
import { AcquirerFailed, AcquirerNoAnswer, type Acquirer, type AcquirerResult, type AuthoriseRequest, type OperationAnswer } from '../acquirer/acquirer.ts';
import type { Db, Queryable } from '../store/db.ts';

export const FAULT_OPERATIONS = ['authorise', 'capture', 'void', 'refund', 'execution'] as const;
export const FAULT_OUTCOMES = ['decline', 'lost', 'error'] as const;
export type FaultOperation = (typeof FAULT_OPERATIONS)[number];
export type FaultOutcome = (typeof FAULT_OUTCOMES)[number];

/** The resultCode of a declined fault (the bank's general decline). */
export const FAULT_DECLINE_CODE = 'decline_general';

export interface Fault {
  id: number;
  operation: FaultOperation;
  outcome: FaultOutcome;
  times: number;
  remaining: number;
  createdAt: string;
}

interface FaultRow {
  id: string | number;
  operation: FaultOperation;
  outcome: FaultOutcome;
  times: number;
  remaining: number;
  created_at: Date;
}

const toFault = (r: FaultRow): Fault => ({ id: Number(r.id), operation: r.operation, outcome: r.outcome, times: r.times, remaining: r.remaining, createdAt: r.created_at.toISOString() });

export async function insertFault(q: Queryable, clientId: string, operation: FaultOperation, outcome: FaultOutcome, times: number, now: Date): Promise<Fault> {
  const { rows } = await q.query<FaultRow>(
    'INSERT INTO sandbox_faults (client_id, operation, outcome, times, remaining, created_at) VALUES ($1, $2, $3, $4, $4, $5) RETURNING *',
    [clientId, operation, outcome, times, now],
  );
  return toFault(rows[0]!);
}

/** The merchant's faults still waiting for an operation, oldest first (the order they are used in). */
export async function selectOpenFaults(q: Queryable, clientId: string): Promise<Fault[]> {
  const { rows } = await q.query<FaultRow>('SELECT * FROM sandbox_faults WHERE client_id = $1 AND remaining > 0 ORDER BY id', [clientId]);
  return rows.map(toFault);
}

/** Drops the merchant's waiting faults; returns how many there were. */
export async function clearFaults(q: Queryable, clientId: string): Promise<number> {
  const { rowCount } = await q.query('UPDATE sandbox_faults SET remaining = 0 WHERE client_id = $1 AND remaining > 0', [clientId]);
  return rowCount ?? 0;
}

/**
 * Takes the oldest waiting fault of `operation` for the merchant of the payment behind `reference`
 * (conformance-run payments excepted), once per reference: a repeated call for a reference already
 * struck (the reconciler asking again) takes nothing. One statement: the fault row is locked, the
 * hit recorded and the count lowered together.
 */
async function takeFault(db: Db, reference: string, operation: FaultOperation, now: Date): Promise<FaultOutcome | null> {
  const payId = reference.split('.')[0]!;
  const { rows } = await db.query<{ outcome: FaultOutcome }>(
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

/** The acquirer with the merchants' faults applied. Production never builds this (gateway.ts). */
export function withSandboxFaults(acquirer: Acquirer, db: Db, clock: Clock): Acquirer {
  /** Runs `perform` unless a fault says otherwise. */
  async function faulted<R>(reference: string, operation: FaultOperation, declined: R, perform: () => Promise<R>): Promise<R> {
    const fault = await takeFault(db, reference, operation, clock.now());
    if (fault === 'decline') return declined;
    if (fault === 'error') throw new AcquirerFailed(`sandbox fault: the ${operation} failed and was not performed`);
    const answer = await perform();
    if (fault === 'lost') throw new AcquirerNoAnswer(`sandbox fault: the ${operation} was performed and its answer lost`);
    return answer;
  }
  const refusal: OperationAnswer = { ok: false, resultCode: FAULT_DECLINE_CODE };
  const decline: AcquirerResult = { outcome: 'declined', resultCode: FAULT_DECLINE_CODE };
  // Late-bound like instrumented.ts: a test may replace a method of the underlying acquirer.
  return {
    authorise: (req: AuthoriseRequest) => faulted(req.reference, 'cardToken' in req.data ? 'execution' : 'authorise', decline, () => acquirer.authorise(req)),
    completeChallenge: (id, code, now) => acquirer.completeChallenge(id, code, now),
    status: (reference, now) => acquirer.status(reference, now),
    capture: (reference, tx, amount) => faulted(reference, 'capture', refusal, () => acquirer.capture(reference, tx, amount)),
    void: (reference, tx) => faulted(reference, 'void', refusal, () => acquirer.void(reference, tx)),
    refund: (reference, tx, amount, split) => faulted(reference, 'refund', refusal, () => acquirer.refund(reference, tx, amount, split)),
  };
}
