// Every rule of the create-payment request (SPEC 4), composed from the shared validators. The JSON
// schema has already checked the shapes (types); this checks the values against the policy, the
// merchant's settings and the clock, and reports every violation at once.
import { isIP } from 'node:net';
import { resolveCallbackUrl } from '../../callbacks/addresses.ts';
import { ERRORS } from '../../errors/catalogue.ts';
import { Violations } from '../../errors/gateway-error.ts';
import {
  CURRENCIES,
  METHOD,
  defaultMethods,
  isCheckoutMethod,
  methodName,
  methodRefusal,
  needsProducts,
  type RequestShape,
} from '../methods.ts';
import {
  amount,
  ansiText,
  chargeLimit,
  currency as currencyRule,
  futureMonth,
  httpUrl,
  oneOf,
  plainText,
} from './fields.ts';
import { installmentProducts, type InstallmentProduct } from './installment.ts';
import { POLICY, type RuleContext } from './policy.ts';
import { isSplitRequest, splitRequest, type SplitShare } from './split.ts';

type Decimal = number | string;

/** The create request after lenient binding and the schema's type checks. */
export interface CreatePaymentInput {
  amount: { currency: string; total?: Decimal; subtotal?: Decimal; tax?: Decimal; shipping?: Decimal };
  returnurl: string;
  extra?: string;
  extra2?: Decimal;
  userIpAddress?: string;
  expirationMinutes?: number;
  methods?: number[];
  installmentProducts?: { name?: string; price: Decimal; quantity: number }[];
  callbackUrl?: string;
  preAuth?: boolean;
  language?: string;
  merchantPaymentId?: string;
  skipInfoMessage?: boolean;
  saveCard?: boolean;
  saveCardToDate?: string;
  description?: string;
}

/** A validated payment, every amount in minor units, ready to be stored. */
export interface NewPayment {
  currency: string;
  amount: number;
  subtotal: number | null;
  tax: number | null;
  shipping: number | null;
  /** Null for a saved-card charge, which has no checkout to return from. */
  returnUrl: string | null;
  callbackUrl: string | null;
  extra: string | null;
  extra2: string | null;
  split: SplitShare | null;
  userIp: string | null;
  expirationMinutes: number;
  methods: number[];
  installmentProducts: InstallmentProduct[] | null;
  preAuth: boolean;
  language: 'KA' | 'EN';
  merchantPaymentId: string | null;
  skipInfoMessage: boolean;
  saveCard: boolean;
  saveCardToDate: string | null;
  description: string | null;
}

/** Empty strings are absent (SDKs send `"extra": ""` on every request). */
const present = <T>(value: T | '' | undefined): T | undefined => (value === '' ? undefined : value);

/** Checks a create request; throws every violation at once as one GatewayError. */
export function checkCreatePayment(input: CreatePaymentInput, ctx: RuleContext): NewPayment {
  const v = new Violations();
  const { merchant } = ctx;
  const saveCard = input.saveCard === true;
  const preAuth = input.preAuth === true;
  const extra = present(input.extra);
  const extra2 = present(input.extra2 === undefined ? undefined : String(input.extra2));

  const code = input.amount.currency.toUpperCase();
  const knownCurrency = (CURRENCIES as readonly string[]).includes(code) ? code : null;
  currencyRule(v, 'amount.currency', input.amount.currency, merchant);

  // Amounts: the total, or subtotal + tax + shipping when it is omitted.
  const parts = { subtotal: null as number | null, tax: null as number | null, shipping: null as number | null };
  for (const key of ['subtotal', 'tax', 'shipping'] as const) {
    const raw = input.amount[key];
    if (raw !== undefined) parts[key] = amount(v, `amount.${key}`, raw, { min: 0, max: ctx.maxAmountMinor });
  }
  let total: number | null = null;
  if (input.amount.total !== undefined) {
    total = amount(v, 'amount.total', input.amount.total, {
      min: saveCard ? 0 : 1,
      max: ctx.maxAmountMinor,
      minReason: 'must be greater than 0 (0 is allowed only with saveCard)',
    });
  } else if (parts.subtotal !== null || parts.tax !== null || parts.shipping !== null) {
    const sum = (parts.subtotal ?? 0) + (parts.tax ?? 0) + (parts.shipping ?? 0);
    if (sum === 0 && !saveCard)
      v.add('amount.total', 'must be greater than 0 (0 is allowed only with saveCard)', ERRORS.amountOutOfRange);
    else if (sum > ctx.maxAmountMinor) v.add('amount.total', 'is above the maximum amount', ERRORS.amountOutOfRange);
    else total = sum;
  } else if (!v.has('amount.subtotal') && !v.has('amount.tax') && !v.has('amount.shipping')) {
    v.add('amount.total', 'is required (or give subtotal, tax and shipping to add up)');
  }
  if (total !== null && !chargeLimit(v, 'amount.total', total, knownCurrency, merchant)) total = null;

  // URLs: where the customer returns, and where callbacks go (a registered address).
  const returnUrl = httpUrl(v, 'returnurl', input.returnurl);
  let callbackUrl: string | null = null;
  if (input.callbackUrl !== undefined) {
    const verdict = resolveCallbackUrl(input.callbackUrl, merchant.callbackUrlPrefixes);
    if (verdict.ok) callbackUrl = verdict.url;
    else v.add('callbackUrl', verdict.reason, verdict.unregistered ? ERRORS.callbackUrlNotRegistered : undefined);
  }

  // Split (an enrolled merchant's IBAN-shaped extra) or standard statement texts.
  const isSplit = isSplitRequest(merchant, extra);
  let split: SplitShare | null = null;
  if (isSplit) split = splitRequest(v, extra!, extra2, total, knownCurrency, ctx.bankCode);
  else {
    if (extra !== undefined) ansiText(v, 'extra', extra, POLICY.extraMaxLength);
    if (extra2 !== undefined) ansiText(v, 'extra2', extra2, POLICY.extra2MaxLength);
  }

  if (input.userIpAddress !== undefined && isIP(input.userIpAddress) === 0)
    v.add('userIpAddress', 'must be an IPv4 or IPv6 address');

  const expirationMinutes = input.expirationMinutes ?? POLICY.expirationMinutesDefault;
  if (
    !Number.isInteger(expirationMinutes) ||
    expirationMinutes < POLICY.expirationMinutesMin ||
    expirationMinutes > POLICY.expirationMinutesMax
  ) {
    v.add(
      'expirationMinutes',
      `must be an integer from ${POLICY.expirationMinutesMin} to ${POLICY.expirationMinutesMax}`,
    );
  }

  // Saved cards.
  if (saveCard && !merchant.saveCardEnabled)
    v.add('saveCard', 'saved cards are not enabled for this merchant', ERRORS.saveCardNotEnabled);
  const saveCardToDate =
    input.saveCardToDate === undefined
      ? null
      : futureMonth(v, 'saveCardToDate', input.saveCardToDate, ctx.now, ctx.timeZone, ERRORS.saveCardDateInPast);

  // Methods: explicit ones must each be known, enabled and allowed; omitted means the default set.
  const shape: RequestShape = { currency: code, preAuth, saveCard, split: isSplit, production: ctx.production };
  const explicit = input.methods !== undefined && input.methods.length > 0;
  let methods: number[] = [];
  if (explicit) {
    const seen = new Set<number>();
    for (const [i, m] of input.methods!.entries()) {
      const field = `methods[${i}]`;
      if (seen.has(m)) {
        v.add(field, `duplicates method ${m}`);
        continue;
      }
      seen.add(m);
      if (m === METHOD.savedCard) {
        v.add(field, `method ${m} (saved card) is not accepted here; charge saved cards with /payments/execution`);
        continue;
      }
      if (!isCheckoutMethod(m)) {
        v.add(field, 'is not a known method code');
        continue;
      }
      if (!merchant.methods.includes(m)) {
        v.add(field, `method ${m} is not enabled for this merchant`, ERRORS.methodNotEnabled);
        continue;
      }
      const refusal = methodRefusal(m, shape);
      if (refusal) {
        v.add(field, refusal, ERRORS.methodRefused);
        continue;
      }
      methods.push(m);
    }
  } else {
    methods = defaultMethods(merchant.methods, shape);
  }

  // Installment: the products are required with a method that needs them and must add up to the total.
  const products =
    input.installmentProducts === undefined
      ? null
      : installmentProducts(v, input.installmentProducts, ctx.maxAmountMinor);
  const needing = methods.filter(needsProducts);
  if (needing.length) {
    if (!input.installmentProducts?.length) {
      if (explicit)
        v.add(
          'installmentProducts',
          `are required when ${needing.map((m) => `${methodName(m).toLowerCase()} (${m})`).join(', ')} is among the methods`,
          ERRORS.installmentMismatch,
        );
      else methods = methods.filter((m) => !needsProducts(m)); // not offered without products
    } else if (total !== null && products !== null) {
      // BigInt: 100 products × quantity × price can pass 2^53 before it is compared.
      const sum = products.reduce((acc, p) => acc + BigInt(p.price) * BigInt(p.quantity), 0n);
      if (sum !== BigInt(total))
        v.add('installmentProducts', 'Σ price × quantity must equal amount.total exactly', ERRORS.installmentMismatch);
    }
  }
  if (methods.length === 0 && !v.has('methods')) {
    v.add(
      'methods',
      'no payment method is left for this payment after the merchant settings and request rules',
      ERRORS.noMethodAvailable,
    );
  }

  // Free text.
  const language = input.language === undefined ? 'KA' : oneOf(v, 'language', input.language, ['KA', 'EN'] as const);
  const merchantPaymentId =
    input.merchantPaymentId === undefined
      ? null
      : plainText(v, 'merchantPaymentId', input.merchantPaymentId, POLICY.merchantPaymentIdMaxLength);
  const description =
    input.description === undefined
      ? null
      : plainText(v, 'description', input.description, POLICY.descriptionMaxLength);

  v.throwIfAny();
  return {
    currency: code,
    amount: total!,
    subtotal: parts.subtotal,
    tax: parts.tax,
    shipping: parts.shipping,
    returnUrl,
    callbackUrl,
    extra: extra ?? null,
    extra2: extra2 ?? null,
    split,
    userIp: input.userIpAddress ?? null,
    expirationMinutes,
    methods,
    installmentProducts: methods.some(needsProducts) ? products : null,
    preAuth,
    language: language ?? 'KA',
    merchantPaymentId,
    skipInfoMessage: input.skipInfoMessage === true,
    saveCard,
    saveCardToDate,
    description,
  };
}
