// Cancel (refund / void) and completion (SPEC 7 and 8). Each is: one transaction that locks the
// payment, checks the rules against its operations so far, and commits the …Processing status with
// an operation row; the acquirer call outside any lock; one transaction that applies the answer.
// A second request arriving while one is processing waits for it, then sees the new amounts — so
// concurrent refunds can never return more than was captured.
import type { OperationResult } from '../acquirer/acquirer.ts';
import { ERRORS, type ErrorDef } from '../api/errors.ts';
import { releaseLinkedClaim, saveLinkedResponse, type IdempotencyScope, type OperationResult as HttpResult } from '../api/idempotency.ts';
import { problem } from '../api/problem.ts';
import type { Services } from '../services.ts';
import type { Queryable } from '../store/db.ts';
import { businessDay } from './business-day.ts';
import { toJsonAmount } from './money.ts';
import { checkCompletion, planCancel, type CancelRequest, type EarlierOperation, type Rejection } from './refund-rules.ts';
import type { PaymentRow } from './row.ts';
import { activateSavedCard } from './saved-cards.ts';
import { lockPayment, updatePayment } from './store.ts';
import { STATUS, type Status } from './statuses.ts';

type Deps = Pick<Services, 'db' | 'clock' | 'acquirer' | 'config' | 'log'>;

const NO_ANSWER = 'no_answer';
const unanswered = (r: OperationResult) => !r.ok && r.resultCode === NO_ANSWER;
const BUSY: ReadonlySet<Status> = new Set<Status>([STATUS.cancelProcessing, STATUS.completionProcessing, STATUS.processing]);

interface OperationRow {
  id: number;
  pay_id: string;
  kind: 'refund' | 'void' | 'capture';
  amount: number;
  split_amount: number | null;
  status: 'processing' | 'done' | 'refused';
  prev_status: Status;
  reference: string;
}

const REJECTION_ERRORS: Record<Rejection['rule'], ErrorDef> = {
  status: ERRORS.notCancellable,
  amount: ERRORS.amountNotRefundable,
  preauth_partial: ERRORS.preAuthPartialCancel,
  same_day: ERRORS.sameDayCancel,
  split: ERRORS.splitCancelInvalid,
  window: ERRORS.blockExpired,
};

function reject(r: Rejection): never {
  const name = r.rule === 'split' ? r.field : 'amount';
  throw problem(REJECTION_ERRORS[r.rule], {
    detail: r.rule === 'split' ? `${r.field} ${r.reason}` : r.reason.charAt(0).toUpperCase() + r.reason.slice(1),
    ...(r.rule === 'split' || r.rule === 'amount' ? { invalidParams: [{ name, reason: r.reason }] } : {}),
  });
}

/**
 * Runs `start` in a transaction with the payment locked. While an operation of the same kind holds
 * the payment in its …Processing status (refunds racing each other), waits and tries again, so each
 * sees the amounts the previous one left. Any other operation in progress answers 409 at once: a
 * cancel meant for a pre-authorisation must not turn into a refund because a completion won the race.
 */
async function whenFree<T>(s: Deps, clientId: string, payId: string, waitOn: Status, start: (q: Queryable, row: PaymentRow) => Promise<T>): Promise<T> {
  const deadline = Date.now() + s.config.operationWaitMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    const result = await s.db.tx(async (q) => {
      const row = await lockPayment(q, payId);
      if (!row || row.client_id !== clientId) throw problem(ERRORS.paymentNotFound);
      if (BUSY.has(row.status) && row.status !== waitOn) {
        throw problem(ERRORS.operationInProgress, { detail: `Another operation is in progress (${row.status}); check the payment and retry`, headers: { 'Retry-After': '1' } });
      }
      if (BUSY.has(row.status)) return { busy: true as const };
      return { busy: false as const, value: await start(q, row) };
    });
    if (!result.busy) return result.value;
    if (Date.now() > deadline) throw problem(ERRORS.operationInProgress, { headers: { 'Retry-After': '1' } });
    await new Promise((r) => setTimeout(r, pause + Math.random() * pause));
  }
}

async function insertOperation(q: Queryable, row: PaymentRow, kind: OperationRow['kind'], amount: number, splitAmount: number | null, day: string, now: Date): Promise<OperationRow> {
  const { rows } = await q.query<OperationRow>(
    `INSERT INTO payment_operations (pay_id, kind, amount, split_amount, status, prev_status, business_day, reference, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'processing', $5, $6, $1 || '.' || $2 || '.' || (SELECT count(*) + 1 FROM payment_operations WHERE pay_id = $1), $7, $7)
     RETURNING *`,
    [row.pay_id, kind, amount, splitAmount, row.status, day, now],
  );
  return rows[0]!;
}

async function callAcquirer(s: Deps, row: PaymentRow, op: OperationRow): Promise<OperationResult> {
  try {
    const tx = row.transaction_id ?? '';
    if (op.kind === 'capture') return await s.acquirer.capture(op.reference, tx, op.amount);
    if (op.kind === 'void') return await s.acquirer.void(op.reference, tx);
    return await s.acquirer.refund(op.reference, tx, op.amount, row.split_iban ? { iban: row.split_iban, amount: op.split_amount ?? 0 } : null);
  } catch (err) {
    // No answer: the payment stays …Processing and the reconciler repeats the call (idempotent per reference).
    s.log.warn({ err, payId: row.pay_id, op: op.kind }, 'acquirer did not answer an operation');
    return { ok: false, resultCode: NO_ANSWER };
  }
}

/** Applies the acquirer's answer to the operation (only once: a finished operation is left alone). */
async function finish(
  s: Deps,
  payId: string,
  opId: number,
  result: OperationResult,
  save?: (q: Queryable, row: PaymentRow) => Promise<void>,
  refused?: (q: Queryable) => Promise<void>,
): Promise<PaymentRow> {
  return s.db.tx(async (q) => {
    const row = (await lockPayment(q, payId))!;
    const { rows } = await q.query<OperationRow>('SELECT * FROM payment_operations WHERE id = $1 FOR UPDATE', [opId]);
    const op = rows[0]!;
    if (op.status !== 'processing' || !BUSY.has(row.status)) return row;
    const now = s.clock.now();
    if (!result.ok) {
      await q.query(`UPDATE payment_operations SET status = 'refused', result_code = $2, updated_at = $3 WHERE id = $1`, [op.id, result.resultCode, now]);
      await refused?.(q);
      return (await updatePayment(q, payId, row.status, op.prev_status, { result_code: result.resultCode }, now))!;
    }
    let updated: PaymentRow;
    if (op.kind === 'capture') {
      updated = (await updatePayment(q, payId, row.status, STATUS.succeeded, { confirmed_amount: op.amount }, now))!;
      if (row.rec_id) await activateSavedCard(q, row.rec_id, now);
    } else {
      const returned = row.returned_amount + op.amount;
      const captured = op.kind === 'void' ? row.amount : (row.confirmed_amount ?? row.amount);
      const to = returned >= captured ? STATUS.returned : STATUS.partialReturned;
      updated = (await updatePayment(
        q,
        payId,
        row.status,
        to,
        { returned_amount: returned, ...(row.split_iban ? { split_returned_amount: (row.split_returned_amount ?? 0) + (op.split_amount ?? 0) } : {}) },
        now,
      ))!;
    }
    await q.query(`UPDATE payment_operations SET status = 'done', updated_at = $2 WHERE id = $1`, [op.id, now]);
    await save?.(q, updated);
    return updated;
  });
}

const messages = { httpStatusCode: 200, developerMessage: null, userMessage: null } as const;

function refusedProblem(result: OperationResult & { ok: false }) {
  if (result.resultCode === NO_ANSWER) {
    return problem(ERRORS.unavailable, { detail: 'The acquirer did not answer; the operation will be settled automatically. Check the payment shortly.', headers: { 'Retry-After': '5' } });
  }
  return problem(ERRORS.acquirerRefused, { resultCode: result.resultCode });
}

/** POST /payments/{payId}/cancel */
export function cancelPayment(s: Deps, clientId: string, payId: string, req: CancelRequest, idem: IdempotencyScope | null): Promise<HttpResult> {
  return runOperation(s, clientId, payId, STATUS.cancelProcessing, idem, async (q, row, now) => {
    const { rows: earlier } = await q.query<EarlierOperation>('SELECT kind, status, business_day FROM payment_operations WHERE pay_id = $1', [payId]);
    const today = businessDay(now, s.config.timeZone);
    const plan = planCancel(row, req, earlier, today, businessDay(row.paid_at ?? row.created_at, s.config.timeZone));
    if ('rule' in plan) reject(plan);
    return insertOperation(q, row, plan.kind, plan.amount, plan.splitAmount, today, now);
  });
}

/** POST /payments/{payId}/completion */
export function completePayment(s: Deps, clientId: string, payId: string, amount: number, idem: IdempotencyScope | null): Promise<HttpResult> {
  return runOperation(s, clientId, payId, STATUS.completionProcessing, idem, async (q, row, now) => {
    const rejection = checkCompletion(row, amount, now);
    if (rejection) reject(rejection);
    return insertOperation(q, row, 'capture', amount, null, businessDay(now, s.config.timeZone), now);
  });
}

/**
 * A cancel or completion: `open` checks the rules and records the operation under the row lock,
 * the payment moves to `processing` in the same transaction, the acquirer is asked outside it, and
 * its answer is applied (and stored for the Idempotency-Key) in a second locked transaction.
 */
async function runOperation(
  s: Deps,
  clientId: string,
  payId: string,
  processing: Status,
  idem: IdempotencyScope | null,
  open: (q: Queryable, row: PaymentRow, now: Date) => Promise<OperationRow>,
): Promise<HttpResult> {
  const { row, op } = await whenFree(s, clientId, payId, processing, async (q, row) => {
    const now = s.clock.now();
    const op = await open(q, row, now);
    const moved = (await updatePayment(q, payId, row.status, processing, {}, now))!;
    // From here the operation exists: its key must never be freed for a second one (see finish).
    await idem?.link(q, payId);
    return { row: moved, op };
  });
  const result = await callAcquirer(s, row, op);
  // No answer: the payment stays processing and the reconciler finishes it.
  if (unanswered(result)) throw refusedProblem(result as OperationResult & { ok: false });
  const done = await finish(s, payId, op.id, result, idem ? (q, p) => idem.save(q, 200, responseBody(op, p)) : undefined, idem ? (q) => releaseLinkedClaim(q, payId) : undefined);
  if (!result.ok) throw refusedProblem(result);
  return { status: 200, body: responseBody(op, done) };
}

/** The 200 answer of a cancel or a completion. */
function responseBody(op: OperationRow, p: PaymentRow) {
  return op.kind === 'capture'
    ? { status: p.status, amount: toJsonAmount(op.amount), confirmedAmount: p.confirmed_amount === null ? null : toJsonAmount(p.confirmed_amount), ...messages }
    : { status: p.status, amount: toJsonAmount(op.amount), returnedAmount: toJsonAmount(p.returned_amount), ...messages };
}

/** Finishes cancels and completions left processing (no answer, or the gateway stopped mid-call). */
export async function reconcileOperation(s: Deps, payId: string): Promise<void> {
  const { rows } = await s.db.query<OperationRow>(`SELECT * FROM payment_operations WHERE pay_id = $1 AND status = 'processing' ORDER BY id DESC LIMIT 1`, [payId]);
  const op = rows[0];
  const row = (await s.db.query<PaymentRow>('SELECT * FROM payments WHERE pay_id = $1', [payId])).rows[0];
  if (!op || !row) return;
  const result = await callAcquirer(s, row, op);
  if (unanswered(result)) return; // still no answer: next round
  // The merchant's request (if it sent an Idempotency-Key) is answered now, or freed if refused.
  await finish(s, payId, op.id, result, (q, p) => saveLinkedResponse(q, payId, 200, responseBody(op, p)), (q) => releaseLinkedClaim(q, payId));
}
