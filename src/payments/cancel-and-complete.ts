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
  lockOperation,
  markOperationDone,
  markOperationRefused,
  selectEarlierOperations,
  selectProcessingOperation,
  type OperationKind,
  type OperationRow,
} from './cancel-and-complete-store.ts';
import { operationWindow, windowFacts, type OperationWindow } from './rules/window.ts';
import { activateSavedCard } from './saved-card-store.ts';
import { STATUS, type Status } from './state-machine.ts';
import { lockPayment, moveOne, plus, selectPaymentById } from './store.ts';

type Deps = Pick<PaymentDeps, 'db' | 'clock' | 'acquirer' | 'config' | 'log' | 'metrics'>;

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
 * Runs `open` in a transaction with the payment locked. While an operation of the same kind holds
 * the payment in its …Processing status (refunds racing each other), waits and tries again, so each
 * sees the amounts the previous one left. Any other operation in progress answers 409 at once: a
 * cancel meant for a pre-authorisation must not turn into a refund because a completion won.
 */
async function whenFree<T>(
  s: Deps,
  clientId: string,
  payId: string,
  waitOn: Status,
  tx: (fn: (q: Queryable) => Promise<T>) => Promise<T>,
  open: (q: Queryable, row: PaymentRow, earlier: EarlierOperation[]) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + s.config.operationWaitMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      return await tx(async (q) => {
        // Asked together (one round trip): the operations are read once the row lock is granted.
        const [row, earlier] = await Promise.all([lockPayment(q, payId), selectEarlierOperations(q, payId)]);
        if (!row || row.client_id !== clientId) throw gatewayError(ERRORS.paymentNotFound);
        if (row.status === waitOn) throw new Busy();
        if (OPERATING.has(row.status)) {
          throw gatewayError(ERRORS.operationInProgress, {
            detail: `Another operation is in progress (${row.status}); check the payment and retry`,
            retryAfterSeconds: 1,
          });
        }
        return open(q, row, earlier);
      });
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
  // The payment moved and the operation done, asked together (one round trip, in this order).
  let moved: Promise<PaymentRow | null>;
  let alsoDone: Promise<unknown>[];
  if (op.kind === 'capture') {
    // The rest of the block is released by the capture itself; the payment now holds what was captured.
    moved = moveOne(q, { payId, from: row.status }, STATUS.succeeded, { confirmed_amount: op.amount }, now, s);
    alsoDone = row.rec_id ? [activateSavedCard(q, row.rec_id, now)] : [];
  } else {
    const returned = row.returned_amount + op.amount;
    const held = op.kind === 'void' ? row.amount : row.confirmed_amount;
    moved = moveOne(
      q,
      { payId, from: row.status },
      returned >= held ? STATUS.returned : STATUS.partialReturned,
      {
        returned_amount: returned,
        ...(row.split_iban ? { split_returned_amount: plus(op.split_amount ?? 0) } : {}),
      },
      now,
      s,
    );
    alsoDone = [];
  }
  const [updated] = await Promise.all([moved, ...alsoDone, markOperationDone(q, op.id, now)]);
  report(s, op, 'done', updated!);
  return outcomeOf(op, updated!);
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
  if (answer.ok) return uow.finish((q) => applyAccepted(s, q, payId, op.id));
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
  const { row, op } = await whenFree<{ row: PaymentRow; op: OperationRow }>(
    s,
    clientId,
    payId,
    processing,
    (fn) => uow.reach('acquirer_called', payId, fn, 'operation'),
    async (q, row, earlier) => {
      const now = s.clock.now();
      const p = plan(row, windowFrom(s, row, earlier, now));
      // The operation recorded and the payment moved, asked together (one round trip, in this order).
      const [op, moved] = await Promise.all([
        insertOperation(q, {
          payId: row.pay_id,
          kind: p.kind,
          amount: p.amount,
          splitAmount: p.splitAmount,
          prevStatus: row.status,
          businessDay: businessDay(now, s.config.timeZone),
          now,
        }),
        moveOne(q, { payId, from: row.status }, processing, {}, now, s),
      ]);
      return { row: moved!, op };
    },
  );
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
