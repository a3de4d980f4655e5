// A customer's attempt to pay (SPEC 6), the one code path behind the checkout page and the sandbox
// simulate endpoint. Processing is committed before the acquirer is called, so a crash mid-call
// leaves a visible state that the reconciler settles; the answer is applied in a second locked
// transaction that also writes the event.
import { AcquirerTimeout, type AcquirerResult, type CardDetails } from '../acquirer/acquirer.ts';
import type { Services } from '../services.ts';
import type { PaymentRow } from './row.ts';
import { insertSavedCard } from './saved-cards.ts';
import { lockPayment, selectPaymentById, startAttempt, transition, updatePayment, type PaymentPatch } from './store.ts';
import { STATUS, type Status } from './statuses.ts';

export type AttemptDetails =
  | { method: 5; card: CardDetails }
  | { method: 11; cardToken: string }
  | { method: 4 | 7 | 8 | 9 | 14; outcome: 'approve' | 'decline'; declineCode?: string };

export class NotPayable extends Error {
  constructor(readonly payment: PaymentRow) {
    super(`payment is ${payment.status}`);
  }
}
export class MethodNotOffered extends Error {}
export class UnknownPayment extends Error {}

type Deps = Pick<Services, 'db' | 'clock' | 'acquirer' | 'config' | 'log'>;

const referenceOf = (payId: string, attempt: number) => `${payId}.${attempt}`;

/** Created → Processing for a new attempt, or NotPayable (expiring it on the way if it is due). */
async function begin(s: Deps, payId: string, method: number): Promise<PaymentRow> {
  // The usual case in one self-locking statement; anything else is sorted out below.
  const started = await startAttempt(s.db, payId, method, s.clock.now());
  if (started) return started;
  return s.db.tx(async (q) => {
    const row = await lockPayment(q, payId);
    if (!row) throw new UnknownPayment(`no payment ${payId}`);
    const now = s.clock.now();
    if (row.status === STATUS.created && row.expires_at.getTime() <= now.getTime()) {
      await transition(q, payId, STATUS.created, STATUS.expired, now);
      throw new NotPayable((await lockPayment(q, payId))!);
    }
    if (row.status !== STATUS.created) throw new NotPayable(row);
    if (!row.methods.includes(method)) throw new MethodNotOffered(`method ${method} is not offered for this payment`);
    return (await updatePayment(q, payId, STATUS.created, STATUS.processing, { attempts: row.attempts + 1, payment_method: method, challenge_id: null }, now))!;
  });
}

/**
 * Applies the acquirer's answer to an attempt still Processing (a stale answer for an attempt that
 * was settled meanwhile changes nothing). Returns the payment as it is afterwards.
 */
export async function settle(s: Deps, payId: string, attempt: number, result: AcquirerResult, known?: PaymentRow): Promise<PaymentRow> {
  // With the attempt's row in hand (its method, preAuth and saveCard cannot change while it is
  // Processing) the answer is one self-locking statement, unless a card must be saved with it.
  if (known && result.outcome !== 'pending' && !(result.outcome === 'approved' && known.save_card)) {
    const now = s.clock.now();
    const { to, patch } = answerPatch(s, known, result, now);
    const updated = await updatePayment(s.db, payId, STATUS.processing, to, patch, now, { lock: true, attempts: attempt });
    if (updated) return updated;
    return (await selectPaymentById(s.db, payId))!; // settled meanwhile: a stale answer changes nothing
  }
  return s.db.tx(async (q) => {
    const row = (await lockPayment(q, payId))!;
    if (row.status !== STATUS.processing || row.attempts !== attempt) return row;
    const now = s.clock.now();
    if (result.outcome === 'pending') return row;
    const { to, patch } = answerPatch(s, row, result, now);
    const updated = (await updatePayment(q, payId, STATUS.processing, to, patch, now))!;
    if (result.outcome === 'approved' && row.save_card && result.cardToken && result.cardMask && result.cardExpiry) {
      await insertSavedCard(q, updated, { token: result.cardToken, mask: result.cardMask, expiry: result.cardExpiry }, now);
    }
    return updated;
  });
}

/** The status and columns an acquirer's answer gives the attempt's payment. */
function answerPatch(s: Deps, row: PaymentRow, result: Exclude<AcquirerResult, { outcome: 'pending' }>, now: Date): { to: Status; patch: PaymentPatch } {
  switch (result.outcome) {
    case 'challenge':
      return { to: STATUS.processing, patch: { challenge_id: result.challengeId } };
    case 'declined': {
      // A saved-card charge has no customer to retry: its one decline is final.
      const limit = row.payment_method === 11 ? 1 : s.config.maxAttempts;
      return { to: row.attempts >= limit ? STATUS.failed : STATUS.created, patch: { result_code: result.resultCode, challenge_id: null } };
    }
    case 'approved':
      return {
        to: row.pre_auth ? STATUS.waitingConfirm : STATUS.succeeded,
        patch: {
          transaction_id: result.transactionId,
          rrn: result.rrn,
          result_code: 'approved',
          card_mask: result.cardMask ?? null,
          card_expiry: result.cardExpiry ?? null,
          challenge_id: null,
          pre_auth_expires_at: row.pre_auth ? new Date(now.getTime() + result.blockDays * 86_400_000) : null,
          paid_at: now,
        },
      };
  }
}

async function ask(s: Deps, call: () => Promise<AcquirerResult>): Promise<AcquirerResult> {
  try {
    return await call();
  } catch (err) {
    // No answer (timeout, connection lost): the attempt stays Processing for the reconciler.
    if (!(err instanceof AcquirerTimeout)) s.log.warn({ err }, 'acquirer call failed');
    return { outcome: 'pending' };
  }
}

/** The customer pays with one method; returns the payment after the acquirer's answer. */
export async function attemptPayment(s: Deps, payId: string, details: AttemptDetails): Promise<PaymentRow> {
  const row = await begin(s, payId, details.method);
  const result = await ask(s, () =>
    s.acquirer.authorise({
      reference: referenceOf(payId, row.attempts),
      amount: row.amount,
      currency: row.currency,
      method: details.method,
      preAuth: row.pre_auth,
      card: 'card' in details ? details.card : undefined,
      cardToken: 'cardToken' in details ? details.cardToken : undefined,
      walletOutcome: 'outcome' in details ? details.outcome : undefined,
      declineCode: 'outcome' in details ? details.declineCode : undefined,
      split: row.split_iban ? { iban: row.split_iban, amount: row.split_amount ?? 0 } : null,
      tokenise: row.save_card && details.method === 5,
    }),
  );
  return settle(s, payId, row.attempts, result, row);
}

/** The cardholder answers the 3-D Secure challenge of the current attempt. */
export async function answerChallenge(s: Deps, row: PaymentRow, code: string): Promise<PaymentRow> {
  if (row.status !== STATUS.processing || !row.challenge_id) throw new NotPayable(row);
  const result = await ask(s, () => s.acquirer.completeChallenge(row.challenge_id!, code));
  return settle(s, row.pay_id, row.attempts, result, row);
}

/** Asks the acquirer what became of an attempt and applies it (the reconciler's step). */
export async function reconcileOne(s: Deps, payId: string, attempt: number): Promise<PaymentRow> {
  const result = await ask(s, () => s.acquirer.status(referenceOf(payId, attempt)));
  return settle(s, payId, attempt, result);
}
