// Faults on demand (sandbox only): a merchant asks that its next n operations of a kind fail —
// declined, performed with the answer lost, or failed without being performed — and a wrapper
// around the acquirer (like instrumented.ts) makes them fail that way. The faults live in the
// database and each acquirer call takes one with a single statement, so several gateway processes
// never give one fault to two operations, or two faults to one.
import type { Clock } from '../clock.ts';
import {
  AcquirerFailed,
  AcquirerNoAnswer,
  type Acquirer,
  type AcquirerResult,
  type AuthoriseRequest,
  type OperationAnswer,
} from '../acquirer/acquirer.ts';
import { Violations } from '../errors/gateway-error.ts';
import type { Db, Queryable } from '../store/db.ts';
import { clearFaults, faultWaiting, insertFault, selectOpenFaults, takeFault } from './faults-store.ts';

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

/** At most this many operations per fault request. */
export const MAX_FAULT_TIMES = 100;

export interface FaultRequest {
  operation: string;
  outcome: string;
  times: number;
}

/** Sets a fault for the merchant's next `times` operations of a kind; 400 with every bad field. */
export async function setFault(
  s: { db: Db; clock: Clock },
  clientId: string,
  { operation, outcome, times }: FaultRequest,
): Promise<Fault> {
  const v = new Violations();
  // find() narrows the text to the listed kinds without a cast.
  const op = FAULT_OPERATIONS.find((o) => o === operation);
  const out = FAULT_OUTCOMES.find((o) => o === outcome);
  if (op === undefined) v.add('operation', `must be one of ${FAULT_OPERATIONS.join(', ')}`);
  if (out === undefined) v.add('outcome', `must be one of ${FAULT_OUTCOMES.join(', ')}`);
  if (times < 1 || times > MAX_FAULT_TIMES) v.add('times', `must be an integer from 1 to ${MAX_FAULT_TIMES}`);
  v.throwIfAny();
  if (op === undefined || out === undefined) throw new Error('unreachable: violations thrown above');
  return insertFault(s.db, clientId, op, out, times, s.clock.now());
}

/** The merchant's faults still waiting for an operation, oldest first. */
export const waitingFaults = (db: Db, clientId: string): Promise<Fault[]> => selectOpenFaults(db, clientId);

/** Drops the merchant's waiting faults; returns how many there were. */
export const dropWaitingFaults = (db: Db, clientId: string): Promise<number> => clearFaults(db, clientId);

/**
 * The acquirer with the merchants' faults applied. Production never builds this (gateway.ts).
 * `reads` first tells whether a fault waits at all (most operations meet none: a read, without
 * taking part in a transaction); only then does `db` take one. An operation whose read comes before
 * a fault is set runs as if it had been made before it — one made after the fault's answer reads it.
 */
export function withSandboxFaults(acquirer: Acquirer, db: Queryable, clock: Clock, reads: Queryable = db): Acquirer {
  /** Runs `perform` unless a fault says otherwise. */
  async function faulted<R>(
    reference: string,
    operation: FaultOperation,
    declined: R,
    perform: () => Promise<R>,
  ): Promise<R> {
    const payId = reference.split('.')[0]!;
    const fault = (await faultWaiting(reads, payId, operation))
      ? await takeFault(db, payId, reference, operation, clock.now())
      : null;
    if (fault === 'decline') return declined;
    if (fault === 'error') throw new AcquirerFailed(`sandbox fault: the ${operation} failed and was not performed`);
    const answer = await perform();
    if (fault === 'lost')
      throw new AcquirerNoAnswer(`sandbox fault: the ${operation} was performed and its answer lost`);
    return answer;
  }
  const refusal: OperationAnswer = { ok: false, resultCode: FAULT_DECLINE_CODE };
  const decline: AcquirerResult = { outcome: 'declined', resultCode: FAULT_DECLINE_CODE };
  // Late-bound like instrumented.ts: a test may replace a method of the underlying acquirer.
  return {
    authorise: (req: AuthoriseRequest) =>
      faulted(req.reference, 'cardToken' in req.data ? 'execution' : 'authorise', decline, () =>
        acquirer.authorise(req),
      ),
    completeChallenge: (id, code, now) => acquirer.completeChallenge(id, code, now),
    status: (reference, now) => acquirer.status(reference, now),
    capture: (reference, tx, amount) =>
      faulted(reference, 'capture', refusal, () => acquirer.capture(reference, tx, amount)),
    void: (reference, tx) => faulted(reference, 'void', refusal, () => acquirer.void(reference, tx)),
    refund: (reference, tx, amount, split) =>
      faulted(reference, 'refund', refusal, () => acquirer.refund(reference, tx, amount, split)),
  };
}
