// Charge a saved card (SPEC 9): synchronous through the acquirer, method 11, one attempt. Phases:
// the payment is created (recovery point `created`), its attempt is committed as Processing
// (`acquirer_called`), the acquirer answers through the one approval path, and the payment as it
// then is becomes the request's stored answer (`finished`). A retry with the same key after a crash
// resumes where the first request stopped instead of charging the card again.
import type { UnitOfWork } from '../idempotency/unit-of-work.ts';
import type { Queryable } from '../store/db.ts';
import type { Merchant } from '../merchants/merchant.ts';
import { beginAttempt, continueAttempt, reconcileAttempt } from './attempt.ts';
import { countsDailyVolume, insertNewPayment } from './daily-volume.ts';
import { ruleContext, type PaymentDeps } from './deps.ts';
import { detailsOf, paymentDetails, type PaymentDetails } from './details.ts';
import { isWellFormedId, newPayId } from './ids.ts';
import { METHOD } from './methods.ts';
import { checkCardUsable, checkExecution, executionSplit, type ExecutionInput } from './rules/execution.ts';
import { POLICY } from './rules/policy.ts';
import { selectSavedCard, type SavedCardRow } from './saved-card-store.ts';
import { STATUS } from './state-machine.ts';
import { insertPayment, selectPayment, type InsertPayment } from './store.ts';

type Deps = Pick<PaymentDeps, 'db' | 'groupCommit' | 'reads' | 'clock' | 'acquirer' | 'config' | 'log' | 'metrics'>;

export async function executeSavedCard(
  s: Deps,
  merchant: Merchant,
  input: ExecutionInput,
  uow: UnitOfWork<PaymentDetails>,
): Promise<PaymentDetails> {
  if (uow.resume) return resume(s, merchant, uow, uow.resume.payId);
  const ctx = ruleContext(s, merchant);
  const checked = checkExecution(input, ctx);
  const card = checkCardUsable(
    isWellFormedId(input.recId) ? await selectSavedCard(s.reads ?? s.db, input.recId) : null,
    ctx,
  );
  const shared = executionSplit(card, checked);
  const payId = newPayId();
  const row: InsertPayment = {
    payId,
    clientId: merchant.clientId,
    recId: null,
    charge: { recId: card.rec_id, initiator: checked.initiator },
    now: ctx.now,
    expiresAt: new Date(ctx.now.getTime() + POLICY.expirationMinutesDefault * 60_000),
    payment: {
      currency: checked.currency,
      amount: checked.amount,
      subtotal: null,
      tax: null,
      shipping: null,
      returnUrl: null,
      callbackUrl: null,
      extra: shared?.extra ?? checked.extra,
      extra2: shared?.extra2 ?? checked.extra2,
      split: shared?.split ?? null,
      userIp: null,
      expirationMinutes: POLICY.expirationMinutesDefault,
      methods: [METHOD.savedCard],
      installmentProducts: null,
      preAuth: checked.preAuth,
      language: 'KA',
      merchantPaymentId: checked.merchantPaymentId,
      skipInfoMessage: false,
      saveCard: false,
      saveCardToDate: null,
      description: null,
    },
  };
  const counted = countsDailyVolume(merchant, checked.currency);
  await uow.reach(
    'created',
    payId,
    (q) => insertNewPayment(q, merchant, row, 'money.amount', s.config.timeZone),
    undefined,
    // Without a key to record and no daily volume to count with it, the payment is one INSERT
    // that needs no transaction of its own: it shares the group commit's (issue 25).
    counted ? undefined : { alone: () => insertPayment(s.groupCommit ?? s.db, row) },
  );
  return charge(s, merchant, uow, payId, card);
}

/** Starts the payment's one attempt with the card's token, and answers the payment as it then is. */
async function charge(
  s: Deps,
  merchant: Merchant,
  uow: UnitOfWork<PaymentDetails>,
  payId: string,
  card: SavedCardRow,
): Promise<PaymentDetails> {
  const begin = (q: Queryable) => beginAttempt(s, q, payId, METHOD.savedCard, s.clock.now());
  // The attempt begun is one statement when it succeeds: without a key, through the group commit,
  // as the checkout's pay step begins its attempts.
  const started = await uow.reach('acquirer_called', payId, begin, undefined, {
    alone: () => begin(s.groupCommit ?? s.db),
  });
  const settled = await continueAttempt(s, started, { method: METHOD.savedCard, cardToken: card.card_token });
  // Without a key the answer is the payment as the acquirer's answer left it, with the card this
  // request checked and charged: nothing to read again (two reads a charge, issue 25).
  return answer(s, merchant, uow, payId, async () => detailsOf(settled, card));
}

/** The payment as it now is: the request's stored answer; without a key, `alone` (a read by default). */
const answer = (
  s: Deps,
  merchant: Merchant,
  uow: UnitOfWork<PaymentDetails>,
  payId: string,
  alone?: () => Promise<PaymentDetails>,
) => {
  const read = async (q: Queryable) => paymentDetails(q, (await selectPayment(q, merchant.clientId, payId))!);
  return uow.finish(read, { alone: alone ?? (() => read(s.reads ?? s.db)) });
};

/** The first request with this key died: continue its charge from where it stopped. */
async function resume(
  s: Deps,
  merchant: Merchant,
  uow: UnitOfWork<PaymentDetails>,
  payId: string,
): Promise<PaymentDetails> {
  const payment = await selectPayment(s.db, merchant.clientId, payId);
  if (payment?.status === STATUS.created && uow.resume?.point === 'created') {
    const card = payment.charged_rec_id ? await selectSavedCard(s.db, payment.charged_rec_id) : null;
    if (card) return charge(s, merchant, uow, payId, card);
  }
  // Its attempt may have reached the acquirer: ask it what happened (nothing is charged twice).
  if (payment?.status === STATUS.processing) await reconcileAttempt(s, payId, payment.attempts);
  return answer(s, merchant, uow, payId);
}
