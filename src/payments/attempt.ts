// A customer's attempt to pay (SPEC 6), the one code path behind the checkout page and the sandbox
// simulate endpoint. Processing is committed before the acquirer is called, so a crash mid-call
// leaves a visible state that the reconciler settles; the answer is applied in a second locked
// transaction that also writes the event.
import { AcquirerTimeout, type AcquirerResult, type CardDetails } from '../acquirer/acquirer.ts';
import type { Services } from '../services.ts';
import type { Queryable } from '../store/db.ts';
import type { PaymentRow } from './row.ts';
import { insertSavedCard } from './saved-cards.ts';
import { lockPayment, transition, updatePayment } from './store.ts';
import { STATUS } from './statuses.ts';

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

type Deps = Pick<Services, 'db' | 'clock' | 'acquirer' | 'config' | 'log'>;

const referenceOf = (payId: string, attempt: number) => `${payId}.${attempt}`;

/** Created → Processing for a new attempt, or NotPayable (expiring it on the way if it is due). */
async function begin(s: Deps, payId: string, method: number): Promise<PaymentRow> {
  return s.db.tx(async (q) => {
    const row = await lockPayment(q, payId);
    if (!row) throw new Error(`no payment ${payId}`);
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
export async function settle(s: Deps, payId: string, attempt: number, result: AcquirerResult): Promise<PaymentRow> {
  return s.db.tx(async (q) => {
    const row = (await lockPayment(q, payId))!;
    if (row.status !== STATUS.processing || row.attempts !== attempt) return row;
    const now = s.clock.now();
    switch (result.outcome) {
      case 'pending':
        return row;
      case 'challenge':
        return (await updatePayment(q, payId, STATUS.processing, STATUS.processing, { challenge_id: result.challengeId }, now))!;
      case 'declined': {
        // A saved-card charge has no customer to retry: its one decline is final.
        const limit = row.payment_method === 11 ? 1 : s.config.maxAttempts;
        const to = row.attempts >= limit ? STATUS.failed : STATUS.created;
        return (await updatePayment(q, payId, STATUS.processing, to, { result_code: result.resultCode, challenge_id: null }, now))!;
      }
      case 'approved':
        return approve(q, row, result, now);
    }
  });
}

async function approve(q: Queryable, row: PaymentRow, r: Extract<AcquirerResult, { outcome: 'approved' }>, now: Date): Promise<PaymentRow> {
  const to = row.pre_auth ? STATUS.waitingConfirm : STATUS.succeeded;
  const updated = (await updatePayment(
    q,
    row.pay_id,
    STATUS.processing,
    to,
    {
      transaction_id: r.transactionId,
      rrn: r.rrn,
      result_code: 'approved',
      card_mask: r.cardMask ?? null,
      card_expiry: r.cardExpiry ?? null,
      challenge_id: null,
      pre_auth_expires_at: row.pre_auth ? new Date(now.getTime() + r.blockDays * 86_400_000) : null,
      paid_at: now,
    },
    now,
  ))!;
  if (row.save_card && r.cardToken && r.cardMask && r.cardExpiry) {
    await insertSavedCard(q, updated, { token: r.cardToken, mask: r.cardMask, expiry: r.cardExpiry }, now);
  }
  return updated;
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
  return settle(s, payId, row.attempts, result);
}

/** The cardholder answers the 3-D Secure challenge of the current attempt. */
export async function answerChallenge(s: Deps, row: PaymentRow, code: string): Promise<PaymentRow> {
  if (row.status !== STATUS.processing || !row.challenge_id) throw new NotPayable(row);
  const result = await ask(s, () => s.acquirer.completeChallenge(row.challenge_id!, code));
  return settle(s, row.pay_id, row.attempts, result);
}

/** Asks the acquirer what became of an attempt and applies it (the reconciler's step). */
export async function reconcileOne(s: Deps, payId: string, attempt: number): Promise<PaymentRow> {
  const result = await ask(s, () => s.acquirer.status(referenceOf(payId, attempt)));
  return settle(s, payId, attempt, result);
}
