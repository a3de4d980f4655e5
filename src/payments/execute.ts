// Charge a saved card (SPEC 9): synchronous through the acquirer, method 11, one attempt.
import { ERRORS } from '../api/errors.ts';
import type { IdempotencyScope, OperationResult } from '../api/idempotency.ts';
import { fieldProblem, problem, type FieldError } from '../api/problem.ts';
import type { Merchant } from '../merchants/merchant.ts';
import type { Services } from '../services.ts';
import { attemptPayment } from './attempt.ts';
import { newPayId } from './ids.ts';
import { formatMinor, isWithinPercent, parseAmount } from './money.ts';
import { CURRENCIES, METHOD } from './methods.ts';
import { selectSavedCard } from './saved-cards.ts';
import { insertPayment, type InsertPayment } from './store.ts';
import { charLength, isAnsiPrintable, isMonthInPast, parseMmYy } from './text.ts';
import { LIMITS } from './validation.ts';
import { getPayment } from './get.ts';

export interface ExecuteInput {
  recId: string;
  money: { amount: number | string; currency: string };
  preAuth?: boolean;
  initiator?: string;
  merchantPaymentId?: string;
  extra?: string;
  extra2?: string | number;
}

export async function executeSavedCard(s: Services, merchant: Merchant, input: ExecuteInput, productPath: string, idem: IdempotencyScope | null): Promise<OperationResult> {
  const errors: FieldError[] = [];
  const fail = (field: string, reason: string, rule = ERRORS.invalidRequest) => errors.push({ field, reason, rule });
  const currency = input.money.currency.toUpperCase();
  if (!(CURRENCIES as readonly string[]).includes(currency)) fail('money.currency', `must be one of ${CURRENCIES.join(', ')}`);
  else if (!merchant.currencies.includes(currency)) fail('money.currency', `${currency} is not enabled for this merchant`, ERRORS.currencyNotEnabled);
  const parsed = parseAmount(input.money.amount);
  let amount = 0;
  if (!parsed.ok) fail('money.amount', parsed.reason);
  else if (parsed.minor <= 0 || parsed.minor > s.config.maxAmountMinor) fail('money.amount', 'must be greater than 0 and at most the maximum amount', ERRORS.amountOutOfRange);
  else if (merchant.testMode && parsed.minor > merchant.testAmountLimit) fail('money.amount', 'is above the test-mode limit of this merchant', ERRORS.testModeLimit);
  else amount = parsed.minor;
  const initiator = input.initiator === undefined ? 'client' : input.initiator.toLowerCase();
  if (initiator !== 'client' && initiator !== 'merchant') fail('initiator', 'must be client or merchant');
  if (input.merchantPaymentId !== undefined && charLength(input.merchantPaymentId) > LIMITS.merchantPaymentIdMaxLength) {
    fail('merchantPaymentId', `must be at most ${LIMITS.merchantPaymentIdMaxLength} characters`);
  }
  if (errors.length) throw fieldProblem('execute-payment', errors);

  const card = /^[0-9a-f]{32}$/.test(input.recId) ? await selectSavedCard(s.db, input.recId) : null;
  if (!card || card.client_id !== merchant.clientId) throw problem(ERRORS.cardNotFound);
  if (card.status !== 'active') throw problem(ERRORS.cardNotUsable, { detail: card.status === 'deleted' ? 'The saved card was deleted' : 'The card becomes usable when its pre-authorised payment is completed' });
  const validTo = parseMmYy(card.valid_to)!;
  if (isMonthInPast(validTo, s.clock.now(), s.config.timeZone)) throw problem(ERRORS.cardNotUsable, { detail: `The card was saved until ${card.valid_to} (MMYY)` });

  // A split card charges with the IBAN and amount stored when it was saved.
  let split: { iban: string; amount: number } | null = null;
  let extra = input.extra ?? null;
  let extra2 = input.extra2 === undefined ? null : String(input.extra2);
  if (card.split_iban && card.split_amount !== null) {
    if (card.split_amount > amount || !isWithinPercent(card.split_amount, amount, LIMITS.splitMaxPercent)) {
      throw fieldProblem('execute-payment', [{ field: 'money.amount', reason: `must be such that the card's split amount is at most ${LIMITS.splitMaxPercent}% of it`, rule: ERRORS.splitAmountInvalid }]);
    }
    split = { iban: card.split_iban, amount: card.split_amount };
    extra = card.split_iban;
    extra2 = formatMinor(card.split_amount);
  } else {
    for (const [field, value, max] of [['extra', extra, LIMITS.extraMaxLength], ['extra2', extra2, LIMITS.extra2MaxLength]] as const) {
      if (value !== null && (!isAnsiPrintable(value) || charLength(value) > max)) fail(field, `must be at most ${max} printable ANSI (Windows-1252) characters`);
    }
    if (errors.length) throw fieldProblem('execute-payment', errors);
  }

  const payId = newPayId();
  const now = s.clock.now();
  const row: InsertPayment = {
    payId,
    clientId: merchant.clientId,
    recId: null,
    charge: { recId: card.rec_id, initiator: initiator as 'client' | 'merchant' },
    now,
    expiresAt: new Date(now.getTime() + LIMITS.expirationMinutesDefault * 60_000),
    payment: {
      currency, amount, subtotal: null, tax: null, shipping: null, returnUrl: null, callbackUrl: null,
      extra, extra2, split, userIp: null, expirationMinutes: LIMITS.expirationMinutesDefault,
      methods: [METHOD.savedCard], installmentProducts: null, preAuth: input.preAuth === true, language: 'KA',
      merchantPaymentId: input.merchantPaymentId ?? null, skipInfoMessage: false, saveCard: false, saveCardToDate: null, description: null,
    },
  };
  // The idempotency key is linked to the payment in the transaction that creates it, so a retry
  // after a crash answers this payment rather than charging the card again.
  await s.db.tx(async (q) => {
    await insertPayment(q, row);
    await idem?.link(q, payId);
  });
  await attemptPayment(s, payId, { method: METHOD.savedCard, cardToken: card.card_token });
  return resumeExecution(s, merchant.clientId, payId, productPath, idem);
}

/** The answer of an execution: the payment as it is now (its attempt settles it, or the reconciler). */
export async function resumeExecution(s: Services, clientId: string, payId: string, productPath: string, idem: IdempotencyScope | null = null): Promise<OperationResult> {
  const body = await getPayment(s, clientId, payId, productPath);
  if (idem) await idem.save(s.db, 200, body);
  return { status: 200, body };
}

