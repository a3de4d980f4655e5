// A customer's attempt to pay (SPEC 6) — the one code path behind the checkout page, the sandbox
// simulate endpoint and saved-card execution. Processing is committed before the acquirer is
// called, so a crash mid-call leaves a visible state the reconciler settles; the answer is applied
// by one status change that locks the row again (and only while the attempt is still the current one).
import { AcquirerFailed, AcquirerNoAnswer, type AcquirerResult } from '../acquirer/acquirer.ts';
import { sealAnswer } from '../acquirer/simulation/instructions.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { Queryable } from '../store/db.ts';
import { approval, keepCard, savesCardOnApproval } from './approval.ts';
import type { PaymentDeps } from './deps.ts';
import { METHOD, isSimulatedFlow, methodName, savesCard } from './methods.ts';
import type { AttemptDetails } from './methods/index.ts';
import type { PaymentRow } from './row.ts';
import { STATUS } from './state-machine.ts';
import { lockPayment, moveOne, plus, recordChallenge, selectPaymentById, type StatusWitness } from './store.ts';

/** The method's data for the acquirer, and in a simulated flow the customer's answer (methods/index.ts). */
export type { AttemptDetails } from './methods/index.ts';

type Deps = Pick<PaymentDeps, 'db' | 'groupCommit' | 'clock' | 'acquirer' | 'config' | 'log' | 'metrics'>;

/** The acquirer's reference of an attempt: unique per payment and attempt, asked again by status(). */
export const attemptReference = (payId: string, attempt: number) => `${payId}.${attempt}`;

/**
 * Created → Processing for a new attempt with `method`, in one self-locking statement, when the
 * payment is open, unexpired and offers the method. Otherwise says why (expiring it on the way when
 * its time is up): payment not found, not payable now, or method not offered.
 */
export async function beginAttempt(
  s: StatusWitness,
  q: Queryable,
  payId: string,
  method: number,
  now: Date,
): Promise<PaymentRow> {
  const started = await moveOne(
    q,
    { payId, from: STATUS.created, openAt: now, offers: method },
    STATUS.processing,
    { attempts: plus(1), payment_method: method, challenge_id: null },
    now,
    s,
  );
  if (started) return started;
  const row = await lockPayment(q, payId);
  if (!row) throw gatewayError(ERRORS.paymentNotFound);
  if (row.status === STATUS.created && row.expires_at.getTime() <= now.getTime()) {
    await moveOne(q, { payId, from: STATUS.created, expiredAt: now }, STATUS.expired, {}, now, s);
    throw gatewayError(ERRORS.notPayable, { detail: 'The payment has expired' });
  }
  if (row.status !== STATUS.created) throw gatewayError(ERRORS.notPayable, { detail: `The payment is ${row.status}` });
  throw gatewayError(ERRORS.methodNotOffered, {
    detail: `${methodName(method)} (${method}) is not offered for this payment`,
  });
}

/**
 * Asks the acquirer; no answer (its timeout, a lost connection) is `pending`, for the reconciler; a
 * technical failure that performed nothing declines the attempt as one to check with the acquirer.
 */
async function ask(s: Deps, payId: string, call: () => Promise<AcquirerResult>): Promise<AcquirerResult> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AcquirerFailed) {
      s.log.warn({ err, payId }, 'acquirer failed; the attempt is declined');
      return { outcome: 'declined', resultCode: 'check_with_acquirer' };
    }
    if (!(err instanceof AcquirerNoAnswer)) throw err; // a bug in a connector is an error, not a lost answer
    s.log.warn({ err, payId }, 'acquirer did not answer; the reconciler will ask again');
    return { outcome: 'pending' };
  }
}

/**
 * Applies the acquirer's answer to an attempt still Processing on that attempt number; a stale
 * answer for an attempt settled meanwhile changes nothing. Returns the payment as it is afterwards.
 */
export async function settle(
  s: Deps,
  payId: string,
  attempt: number,
  result: AcquirerResult,
  known?: PaymentRow,
): Promise<PaymentRow> {
  const now = s.clock.now();
  const current = { payId, from: STATUS.processing, attempts: attempt } as const;
  let changed: PaymentRow | null = null;
  if (result.outcome === 'challenge') {
    changed = await recordChallenge(s.db, payId, attempt, result.challengeId, now);
  } else if (result.outcome === 'declined') {
    const row = known ?? (await selectPaymentById(s.db, payId));
    // A saved-card charge has no customer to try again: its one decline is final.
    const limit = row?.payment_method === METHOD.savedCard ? 1 : s.config.maxAttempts;
    changed = await moveOne(
      s.db,
      current,
      attempt >= limit ? STATUS.failed : STATUS.created,
      { result_code: result.resultCode, challenge_id: null },
      now,
      s,
    );
  } else if (result.outcome === 'approved') {
    const row = known ?? (await selectPaymentById(s.db, payId));
    if (row) {
      const { to, patch } = approval(row, result, now);
      changed = savesCardOnApproval(row)
        ? await s.db.tx(async (q) => {
            const approved = await moveOne(q, current, to, patch, now, s);
            if (approved) await keepCard(q, approved, result, now, s.log);
            return approved;
          })
        : await moveOne(s.groupCommit ?? s.db, current, to, patch, now, s);
    }
  }
  return changed ?? (await selectPaymentById(s.db, payId))!;
}

function authorise(s: Deps, row: PaymentRow, details: AttemptDetails): Promise<AcquirerResult> {
  const { answer, ...data } = details;
  return ask(s, row.pay_id, () =>
    s.acquirer.authorise({
      reference: attemptReference(row.pay_id, row.attempts),
      amount: row.amount,
      currency: row.currency,
      method: details.method,
      preAuth: row.pre_auth,
      data,
      // The customer's answer in a simulated flow, for the sandbox simulator only (sealed).
      simulation: answer ? sealAnswer(answer) : undefined,
      split: row.split_iban ? { iban: row.split_iban, amount: row.split_amount ?? 0 } : null,
      tokenise: row.save_card && savesCard(details.method),
      now: s.clock.now(),
    }),
  );
}

/** Runs an attempt begun by beginAttempt: the acquirer's answer, applied. */
export async function continueAttempt(s: Deps, started: PaymentRow, details: AttemptDetails): Promise<PaymentRow> {
  return settle(s, started.pay_id, started.attempts, await authorise(s, started, details), started);
}

/** The customer pays with one method; returns the payment after the acquirer's answer. */
export async function attemptPayment(s: Deps, payId: string, details: AttemptDetails): Promise<PaymentRow> {
  // A simulated flow never runs in production, whatever the payment offers (one made in a sandbox
  // database, or a form posted by hand): the customer's click must not approve anything.
  if (s.config.mode === 'production' && isSimulatedFlow(details.method)) {
    throw gatewayError(ERRORS.methodNotOffered, {
      detail: `${methodName(details.method)} (${details.method}) is not available in production`,
    });
  }
  const started = await beginAttempt(s, s.groupCommit ?? s.db, payId, details.method, s.clock.now());
  return continueAttempt(s, started, details);
}

/** The cardholder answers the 3-D Secure challenge of the current attempt. */
export async function answerChallenge(s: Deps, row: PaymentRow, code: string): Promise<PaymentRow> {
  if (row.status !== STATUS.processing || !row.challenge_id)
    throw gatewayError(ERRORS.notPayable, { detail: `The payment is ${row.status} and waits for no 3-D Secure code` });
  const challengeId = row.challenge_id;
  const result = await ask(s, row.pay_id, () => s.acquirer.completeChallenge(challengeId, code, s.clock.now()));
  return settle(s, row.pay_id, row.attempts, result, row);
}

/** Asks the acquirer what became of an attempt and applies it (the reconciler's step). */
export async function reconcileAttempt(s: Deps, payId: string, attempt: number): Promise<PaymentRow> {
  const result = await ask(s, payId, () => s.acquirer.status(attemptReference(payId, attempt), s.clock.now()));
  return settle(s, payId, attempt, result);
}
