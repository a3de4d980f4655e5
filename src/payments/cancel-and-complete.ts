// Cancel (refund / void) and completion (SPEC 7 and 8). Each runs in phases: one transaction locks
// the payment, checks the rules against its operations so far, records the operation and commits
// the …Processing status (recovery point `acquirer_called`); the acquirer is asked outside any lock;
// one transaction applies its answer and stores the outcome (`finished`), or restores the status
// and frees the key when the acquirer refused. A second request arriving while one of its kind is
// processing waits for it and then sees the new amounts, so concurrent refunds can never return
// more than was captured. The reconciler finishes an operation whose answer was lost.
import { AcquirerFailed, AcquirerNoAnswer, type OperationAnswer } from '../acquirer/acquirer.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import { finishLinkedKeys, releaseLinkedKeys } from '../idempotency/store.ts';
import type { UnitOfWork } from '../idempotency/unit-of-work.ts';
import type { Queryable } from '../store/db.ts';
import { businessDay } from './business-day.ts';
import type { PaymentDeps } from './deps.ts';
import type { PaymentRow } from './row.ts';
import { checkCompletion, planCancel, type CancelRequest, type EarlierOperation } from './rules/cancel.ts';
import {
  insertOperation,
  insertOperationJoined,
  lockOperation,
  markOperationDone,
  markOperationDoneJoined,
  markOperationRefused,
  openedOperation,
  selectEarlierOperations,
  selectForOperation,
  selectProcessingOperation,
  type NewOperation,
  type OperationKind,
  type OperationRow,
} from './cancel-and-complete-store.ts';
import { operationWindow, windowFacts, type OperationWindow } from './rules/window.ts';
import { activateSavedCard } from './saved-card-store.ts';
import { STATUS, type Status } from './state-machine.ts';
import { lockPayment, moveOne, moveOneJoined, plus, selectPaymentById, type PaymentPatch } from './store.ts';

type Deps = Pick<PaymentDeps, 'db' | 'groupCommit' | 'reads' | 'clock' | 'acquirer' | 'config' | 'log' | 'metrics'>;

/** What a cancel or completion did: the domain result, stored for replays and rendered by the API. */
export interface OperationOutcome {
  kind: OperationKind;
  /** The payment's status afterwards. */
  status: Status;
  /** This operation's amount (minor units). */
  amount: number;
  returnedAmount: number;
  confirmedAmount: number;
}

/** The statuses of a cancel or completion under way. */
const OPERATING: ReadonlySet<Status> = new Set<Status>([STATUS.cancelProcessing, STATUS.completionProcessing]);

/** Thrown inside a transaction to roll it back while another operation of the same kind runs. */
class Busy extends Error {}

/**
 * The payment, if it is free for an operation of the kind that waits on `waitOn`. While an
 * operation of the same kind holds the payment in its …Processing status (refunds racing each
 * other), Busy: the caller waits and tries again, so each sees the amounts the previous one left.
 * Any other operation in progress answers 409 at once: a cancel meant for a pre-authorisation must
 * not turn into a refund because a completion won.
 */
function free(row: PaymentRow | null, clientId: string, waitOn: Status): PaymentRow {
  if (!row || row.client_id !== clientId) throw gatewayError(ERRORS.paymentNotFound);
  if (row.status === waitOn) throw new Busy();
  if (OPERATING.has(row.status)) {
    throw gatewayError(ERRORS.operationInProgress, {
      detail: `Another operation is in progress (${row.status}); check the payment and retry`,
      retryAfterSeconds: 1,
    });
  }
  return row;
}

/** Runs `attempt` until it does not throw Busy, within the operation wait (then 409). */
async function whenFree<T>(s: Deps, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + s.config.operationWaitMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof Busy)) throw err;
    }
    if (Date.now() > deadline) throw gatewayError(ERRORS.operationInProgress, { retryAfterSeconds: 1 });
    await new Promise((r) => setTimeout(r, pause + Math.random() * pause));
  }
}

/** The acquirer failed with a technical error and performed nothing (AcquirerFailed). */
const FAILED = { ok: false, resultCode: 'check_with_acquirer', failed: true } as const;
type Answer = OperationAnswer | typeof FAILED;

/** The acquirer's answer to the operation; null when it did not answer (asked again later). */
async function callAcquirer(s: Deps, row: PaymentRow, op: OperationRow): Promise<Answer | null> {
  try {
    const tx = row.transaction_id ?? '';
    if (op.kind === 'capture') return await s.acquirer.capture(op.reference, tx, op.amount);
    if (op.kind === 'void') return await s.acquirer.void(op.reference, tx);
    return await s.acquirer.refund(
      op.reference,
      tx,
      op.amount,
      row.split_iban ? { iban: row.split_iban, amount: op.split_amount ?? 0 } : null,
    );
  } catch (err) {
    if (err instanceof AcquirerFailed) {
      // Nothing was performed: the operation is refused like a decline, but the merchant may retry.
      s.log.warn({ err, payId: op.pay_id, kind: op.kind }, 'acquirer failed; nothing performed');
      return FAILED;
    }
    if (!(err instanceof AcquirerNoAnswer)) throw err;
    // No answer: the payment stays …Processing and the reconciler repeats the call (idempotent per reference).
    report(s, op, 'no_answer', row);
    return null;
  }
}

const outcomeOf = (op: Pick<OperationRow, 'kind' | 'amount'>, p: PaymentRow): OperationOutcome => ({
  kind: op.kind,
  status: p.status,
  amount: op.amount,
  returnedAmount: p.returned_amount,
  confirmedAmount: p.confirmed_amount,
});

/**
 * Applies an accepted answer to the operation, once: an operation already finished (by the
 * reconciler, or a retry) is left alone and its payment answered as it is.
 */
async function applyAccepted(s: Deps, q: Queryable, payId: string, opId: number): Promise<OperationOutcome> {
  const [row, op] = await lockBoth(q, payId, opId);
  if (op.status !== 'processing' || !OPERATING.has(row.status)) return outcomeOf(op, row);
  const now = s.clock.now();
  const { to, patch } = accepted(row, op);
  // The payment moved, the operation done (and a saved card activated by its capture), asked
  // together: one round trip, in this order.
  const [updated] = await Promise.all([
    moveOne(q, { payId, from: row.status }, to, patch, now, s),
    markOperationDone(q, op.id, now),
    ...(op.kind === 'capture' && row.rec_id ? [activateSavedCard(q, row.rec_id, now)] : []),
  ]);
  report(s, op, 'done', updated!);
  return outcomeOf(op, updated!);
}

/**
 * applyAccepted without a transaction of its own, for a request without an idempotency key: one
 * statement, through the group commit, moves the payment from where the operation left it (the
 * same version: nothing else can move it meanwhile but the reconciler finishing this very
 * operation) and marks the operation done. When the payment is no longer at that version, or a
 * saved card is to be activated with the capture, the locked transaction does it as before.
 */
async function applyAcceptedAlone(s: Deps, row: PaymentRow, op: OperationRow): Promise<OperationOutcome> {
  const payId = row.pay_id;
  if (op.kind === 'capture' && row.rec_id) return s.db.tx((q) => applyAccepted(s, q, payId, op.id));
  const now = s.clock.now();
  const { to, patch } = accepted(row, op);
  const moved = await moveOneJoined(s.groupCommit ?? s.db, {
    sel: { payId, from: row.status, eventSeq: row.event_seq },
    to,
    patch,
    now,
    witness: s,
    also: markOperationDoneJoined(op.id, now),
  });
  if (!moved) return s.db.tx((q) => applyAccepted(s, q, payId, op.id));
  report(s, op, 'done', moved.row);
  return outcomeOf(op, moved.row);
}

/** Where an accepted operation takes the payment, and what it sets there. */
function accepted(row: PaymentRow, op: OperationRow): { to: Status; patch: PaymentPatch } {
  // A capture: the rest of the block is released by the capture itself; the payment now holds what was captured.
  if (op.kind === 'capture') return { to: STATUS.succeeded, patch: { confirmed_amount: op.amount } };
  const returned = row.returned_amount + op.amount;
  const held = op.kind === 'void' ? row.amount : row.confirmed_amount;
  return {
    to: returned >= held ? STATUS.returned : STATUS.partialReturned,
    patch: {
      returned_amount: returned,
      ...(row.split_iban ? { split_returned_amount: plus(op.split_amount ?? 0) } : {}),
    },
  };
}

/** The payment and its operation, locked in that order (asked together: one round trip). */
async function lockBoth(q: Queryable, payId: string, opId: number): Promise<[PaymentRow, OperationRow]> {
  const [row, op] = await Promise.all([lockPayment(q, payId), lockOperation(q, opId)]);
  return [row!, op];
}

/** Every refund, void and completion in the log and the metrics, whatever its outcome. */
function report(
  s: Deps,
  op: OperationRow,
  outcome: 'done' | 'refused' | 'no_answer',
  p?: PaymentRow,
  resultCode?: string,
): void {
  s.metrics?.operations.inc({ kind: op.kind, outcome });
  const fields = {
    event: 'payment.operation',
    payId: op.pay_id,
    kind: op.kind,
    amount: op.amount,
    splitAmount: op.split_amount,
    outcome,
    status: p?.status,
    resultCode,
  };
  if (outcome === 'done') s.log.info(fields, `${op.kind} done`);
  else
    s.log.warn(
      fields,
      `${op.kind} ${outcome === 'refused' ? 'refused by the acquirer' : 'not answered by the acquirer'}`,
    );
}

/** Applies a refusal: the operation is refused and the payment goes back to where it was. */
async function applyRefused(s: Deps, q: Queryable, payId: string, opId: number, resultCode: string): Promise<boolean> {
  const [row, op] = await lockBoth(q, payId, opId);
  if (op.status !== 'processing' || !OPERATING.has(row.status)) return false;
  const now = s.clock.now();
  const [, back] = await Promise.all([
    markOperationRefused(q, op.id, resultCode, now),
    moveOne(q, { payId, from: row.status }, op.prev_status, { result_code: resultCode }, now, s),
  ]);
  report(s, op, 'refused', back ?? undefined, resultCode);
  return true;
}

const refused = (resultCode: string) =>
  gatewayError(ERRORS.acquirerRefused, {
    resultCode,
    detail: `The acquirer refused the operation (${resultCode}); nothing changed`,
  });
const noAnswer = () =>
  gatewayError(ERRORS.unavailable, {
    detail: 'The acquirer did not answer; the operation will be settled automatically. Check the payment shortly.',
    retryAfterSeconds: 5,
  });

/** The acquirer is asked about an operation already recorded, and its answer applied in the unit of work. */
async function conclude(
  s: Deps,
  payId: string,
  op: OperationRow,
  row: PaymentRow,
  uow: UnitOfWork<OperationOutcome>,
): Promise<OperationOutcome> {
  const answer = await callAcquirer(s, row, op);
  if (!answer) throw noAnswer(); // stays processing: the reconciler (or a retry with the key) finishes it
  if (answer.ok)
    return uow.finish((q) => applyAccepted(s, q, payId, op.id), { alone: () => applyAcceptedAlone(s, row, op) });
  await uow.abandon((q) => applyRefused(s, q, payId, op.id, answer.resultCode));
  if ('failed' in answer)
    throw gatewayError(ERRORS.acquirerError, {
      detail: 'The acquirer failed with a technical error and performed nothing; retry shortly',
      retryAfterSeconds: 5,
    });
  throw refused(answer.resultCode);
}

/**
 * A cancel or completion: `plan` checks the rules under the row lock and says what to record; the
 * operation row, the …Processing status and the key's recovery point commit together.
 */
async function runOperation(
  s: Deps,
  clientId: string,
  payId: string,
  processing: Status,
  uow: UnitOfWork<OperationOutcome>,
  plan: (
    row: PaymentRow,
    window: OperationWindow,
  ) => { kind: OperationKind; amount: number; splitAmount: number | null },
): Promise<OperationOutcome> {
  if (uow.resume?.point === 'acquirer_called') {
    // This request's first try recorded the operation and died: ask the acquirer and finish it.
    const op = await selectProcessingOperation(s.db, payId);
    const row = await selectPaymentById(s.db, payId);
    if (op && row) return conclude(s, payId, op, row, uow);
  }
  type Opened = { row: PaymentRow; op: OperationRow };
  const recordFor = (row: PaymentRow, earlier: EarlierOperation[]): NewOperation => {
    const now = s.clock.now();
    const p = plan(row, windowFrom(s, row, earlier, now));
    return {
      payId,
      kind: p.kind,
      amount: p.amount,
      splitAmount: p.splitAmount,
      prevStatus: row.status,
      businessDay: businessDay(now, s.config.timeZone),
      now,
    };
  };
  // With the payment locked: the operation recorded and the payment moved, asked together (one
  // round trip, in this order), and the key's recovery point with them.
  const locked = (q: Queryable): Promise<Opened> =>
    Promise.all([lockPayment(q, payId), selectEarlierOperations(q, payId)]).then(async ([found, earlier]) => {
      const row = free(found, clientId, processing);
      const record = recordFor(row, earlier);
      const [op, moved] = await Promise.all([
        insertOperation(q, record),
        moveOne(q, { payId, from: row.status }, processing, {}, record.now, s),
      ]);
      return { row: moved!, op };
    });
  // Without a key to record: the payment and its operations read (no lock), the rules checked, and
  // one statement through the group commit records the operation and moves the payment — only if
  // the payment is still at the version read; else it changed meanwhile and the rules are checked
  // again on what it is now (Busy: whenFree tries again).
  const alone = async (): Promise<Opened> => {
    const found = await selectForOperation(s.reads ?? s.db, payId);
    const row = free(found?.row ?? null, clientId, processing);
    const record = recordFor(row, found!.earlier);
    const moved = await moveOneJoined(s.groupCommit ?? s.db, {
      sel: { payId, from: row.status, eventSeq: row.event_seq },
      to: processing,
      patch: {},
      now: record.now,
      witness: s,
      also: insertOperationJoined(record),
    });
    if (!moved) throw new Busy();
    return { row: moved.row, op: openedOperation(moved.joined, record) };
  };
  const { row, op } = await whenFree(s, () => uow.reach('acquirer_called', payId, locked, 'operation', { alone }));
  return conclude(s, payId, op, row, uow);
}

/** Which operations the payment allows now (rules/window.ts), from its row and its earlier operations. */
export async function windowOf(
  s: Pick<Deps, 'config'>,
  q: Queryable,
  row: PaymentRow,
  now: Date,
): Promise<OperationWindow> {
  return windowFrom(s, row, await selectEarlierOperations(q, row.pay_id), now);
}

/** windowOf, from operations already read. */
function windowFrom(s: Pick<Deps, 'config'>, row: PaymentRow, earlier: EarlierOperation[], now: Date): OperationWindow {
  return operationWindow(windowFacts(row, earlier, s.config.timeZone), now, businessDay(now, s.config.timeZone));
}

/** POST /payments/{payId}/cancel: a refund of a paid payment, or the void of a pre-authorisation. */
export function cancelPayment(
  s: Deps,
  clientId: string,
  payId: string,
  req: CancelRequest,
  uow: UnitOfWork<OperationOutcome>,
): Promise<OperationOutcome> {
  return runOperation(s, clientId, payId, STATUS.cancelProcessing, uow, (row, window) => planCancel(row, req, window));
}

/** POST /payments/{payId}/completion: captures a pre-authorisation (all of it, or less). */
export function completePayment(
  s: Deps,
  clientId: string,
  payId: string,
  amount: number,
  uow: UnitOfWork<OperationOutcome>,
): Promise<OperationOutcome> {
  return runOperation(s, clientId, payId, STATUS.completionProcessing, uow, (row, window) => {
    checkCompletion(row, amount, window);
    return { kind: 'capture', amount, splitAmount: null };
  });
}

/**
 * Finishes a cancel or completion left processing (no answer, or the gateway stopped mid-call). The
 * merchant's request, if it sent an Idempotency-Key, is answered now (or its key freed if refused),
 * in the same transaction.
 */
export async function reconcileOperation(s: Deps, payId: string): Promise<void> {
  const op = await selectProcessingOperation(s.db, payId);
  const row = await selectPaymentById(s.db, payId);
  if (!op || !row) return;
  const answer = await callAcquirer(s, row, op);
  if (!answer) return; // still no answer: next round
  // The keys of the request that recorded this operation (linked as 'operation' work) are answered
  // or freed with it: the domain needs no name of the merchant API's operations.
  await s.db.tx(async (q) => {
    if (answer.ok) await finishLinkedKeys(q, payId, 'operation', await applyAccepted(s, q, payId, op.id));
    else if (await applyRefused(s, q, payId, op.id, answer.resultCode)) await releaseLinkedKeys(q, payId, 'operation');
  });
}
