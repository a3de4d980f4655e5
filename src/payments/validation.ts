// Every rule of the create-payment request (SPEC 4) in one pure function. The JSON schema has
// already checked the shapes (types); this module checks the values against the rules, the
// merchant's settings and the clock, and reports every violation at once.
import { isIP } from 'node:net';
import { ERRORS } from '../api/errors.ts';
import type { FieldError } from '../api/problem.ts';
import type { Merchant } from '../merchants/merchant.ts';
import { checkSplitIban } from './iban.ts';
import { CHECKOUT_METHODS, CURRENCIES, METHOD, defaultMethods, methodRefusal, type RequestShape } from './methods.ts';
import { isWithinPercent, parseAmount } from './money.ts';
import { charLength, isAnsiPrintable, isHttpUrl, isMonthInPast, parseMmYy } from './text.ts';

export const LIMITS = {
  extraMaxLength: 25,
  extra2MaxLength: 52,
  descriptionMaxLength: 30,
  merchantPaymentIdMaxLength: 64,
  urlMaxLength: 2048,
  expirationMinutesMin: 1,
  expirationMinutesMax: 1440,
  expirationMinutesDefault: 12,
  splitMaxPercent: 99,
  installmentProductsMax: 100,
  installmentNameMaxLength: 200,
  installmentQuantityMax: 1_000_000,
} as const;

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

export interface InstallmentProduct {
  name: string | null;
  price: number;
  quantity: number;
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
  split: { iban: string; amount: number } | null;
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

export interface RuleContext {
  merchant: Merchant;
  maxAmountMinor: number;
  bankCode: string;
  now: Date;
  timeZone: string;
}

export type Validated = { ok: true; payment: NewPayment } | { ok: false; errors: FieldError[] };

const HAS_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function validateCreatePayment(input: CreatePaymentInput, ctx: RuleContext): Validated {
  const errors: FieldError[] = [];
  const fail = (field: string, reason: string, rule = ERRORS.invalidRequest) => errors.push({ field, reason, rule });
  const { merchant } = ctx;
  const saveCard = input.saveCard === true;
  const preAuth = input.preAuth === true;

  // Currency.
  const currency = input.amount.currency.toUpperCase();
  if (!(CURRENCIES as readonly string[]).includes(currency)) fail('amount.currency', `must be one of ${CURRENCIES.join(', ')}`);
  else if (!merchant.currencies.includes(currency)) fail('amount.currency', `${currency} is not enabled for this merchant`, ERRORS.currencyNotEnabled);

  // Amounts.
  const parts: Record<'subtotal' | 'tax' | 'shipping', number | null> = { subtotal: null, tax: null, shipping: null };
  for (const key of ['subtotal', 'tax', 'shipping'] as const) {
    const raw = input.amount[key];
    if (raw === undefined) continue;
    const p = parseAmount(raw);
    if (!p.ok) fail(`amount.${key}`, p.reason);
    else if (p.minor > ctx.maxAmountMinor) fail(`amount.${key}`, 'is above the maximum amount', ERRORS.amountOutOfRange);
    else parts[key] = p.minor;
  }
  let total: number | null = null;
  if (input.amount.total !== undefined) {
    const p = parseAmount(input.amount.total);
    if (!p.ok) fail('amount.total', p.reason);
    else total = p.minor;
  } else if (parts.subtotal !== null || parts.tax !== null || parts.shipping !== null) {
    total = (parts.subtotal ?? 0) + (parts.tax ?? 0) + (parts.shipping ?? 0);
  } else if (!errors.some((e) => e.field.startsWith('amount.') && e.field !== 'amount.currency')) {
    fail('amount.total', 'is required (or give subtotal, tax and shipping to add up)');
  }
  if (total !== null) {
    if (total === 0 && !saveCard) fail('amount.total', 'must be greater than 0 (0 is allowed only with saveCard)', ERRORS.amountOutOfRange);
    else if (total > ctx.maxAmountMinor) fail('amount.total', 'is above the maximum amount', ERRORS.amountOutOfRange);
    else if (merchant.testMode && total > merchant.testAmountLimit) {
      fail('amount.total', 'is above the test-mode limit of this merchant', ERRORS.testModeLimit);
    }
  }

  // URLs.
  if (input.returnurl.length > LIMITS.urlMaxLength || !isHttpUrl(input.returnurl)) fail('returnurl', 'must be an absolute http(s) URL');
  let callbackUrl: string | null = null;
  if (input.callbackUrl !== undefined) {
    if (input.callbackUrl.length > LIMITS.urlMaxLength || !isHttpUrl(input.callbackUrl)) fail('callbackUrl', 'must be an absolute http(s) URL');
    else if (!merchant.callbackUrlPrefixes.some((prefix) => input.callbackUrl!.startsWith(prefix))) {
      fail('callbackUrl', 'must start with a callback URL prefix registered for this merchant', ERRORS.callbackUrlNotRegistered);
    } else callbackUrl = input.callbackUrl;
  }

  // Split or standard extra/extra2.
  const isSplit = merchant.splitEnrolled && (input.extra !== undefined || input.extra2 !== undefined);
  let split: NewPayment['split'] = null;
  const extra2Text = input.extra2 === undefined ? undefined : String(input.extra2);
  if (isSplit) {
    let iban: string | null = null;
    let splitAmount: number | null = null;
    if (input.extra === undefined) fail('extra', 'is required for a split payment (the destination IBAN)', ERRORS.splitIncomplete);
    else {
      const check = checkSplitIban(input.extra, ctx.bankCode);
      if (check.ok) iban = check.iban;
      else fail('extra', check.reason, check.kind === 'format' ? ERRORS.splitInvalidIban : ERRORS.splitForeignIban);
    }
    if (extra2Text === undefined) fail('extra2', 'is required for a split payment (the amount for the IBAN)', ERRORS.splitIncomplete);
    else {
      const p = parseAmount(extra2Text);
      if (!p.ok) fail('extra2', p.reason, ERRORS.splitAmountInvalid);
      else if (p.minor <= 0) fail('extra2', 'must be greater than 0', ERRORS.splitAmountInvalid);
      else if (total !== null && p.minor > total) fail('extra2', 'must not exceed the total amount', ERRORS.splitAmountInvalid);
      else if (total !== null && !isWithinPercent(p.minor, total, LIMITS.splitMaxPercent)) {
        fail('extra2', `must be at most ${LIMITS.splitMaxPercent}% of the total amount`, ERRORS.splitAmountInvalid);
      } else splitAmount = p.minor;
    }
    if (currency !== 'GEL' && (CURRENCIES as readonly string[]).includes(currency)) fail('amount.currency', 'split payments are GEL only', ERRORS.splitCurrency);
    if (iban !== null && splitAmount !== null) split = { iban, amount: splitAmount };
  } else {
    if (input.extra !== undefined) {
      if (!isAnsiPrintable(input.extra)) fail('extra', 'must contain only printable ANSI (Windows-1252) characters');
      else if (charLength(input.extra) > LIMITS.extraMaxLength) fail('extra', `must be at most ${LIMITS.extraMaxLength} characters`);
    }
    if (extra2Text !== undefined) {
      if (!isAnsiPrintable(extra2Text)) fail('extra2', 'must contain only printable ANSI (Windows-1252) characters');
      else if (charLength(extra2Text) > LIMITS.extra2MaxLength) fail('extra2', `must be at most ${LIMITS.extra2MaxLength} characters`);
    }
  }

  if (input.userIpAddress !== undefined && isIP(input.userIpAddress) === 0) fail('userIpAddress', 'must be an IPv4 or IPv6 address');

  const expirationMinutes = input.expirationMinutes ?? LIMITS.expirationMinutesDefault;
  if (!Number.isInteger(expirationMinutes) || expirationMinutes < LIMITS.expirationMinutesMin || expirationMinutes > LIMITS.expirationMinutesMax) {
    fail('expirationMinutes', `must be an integer from ${LIMITS.expirationMinutesMin} to ${LIMITS.expirationMinutesMax}`);
  }

  // Saved cards.
  if (saveCard && !merchant.saveCardEnabled) fail('saveCard', 'saved cards are not enabled for this merchant', ERRORS.saveCardNotEnabled);
  let saveCardToDate: string | null = null;
  if (input.saveCardToDate !== undefined) {
    const ym = parseMmYy(input.saveCardToDate);
    if (!ym) fail('saveCardToDate', 'must be MMYY with a month from 01 to 12');
    else if (isMonthInPast(ym, ctx.now, ctx.timeZone)) fail('saveCardToDate', 'must not be in the past', ERRORS.saveCardDateInPast);
    else saveCardToDate = input.saveCardToDate;
  }

  // Methods: explicit ones must each be known, enabled and allowed; omitted means the default set.
  const shape: RequestShape = { currency, preAuth, saveCard, split: isSplit };
  let methods: number[];
  const explicit = input.methods !== undefined && input.methods.length > 0;
  if (explicit) {
    methods = [];
    const seen = new Set<number>();
    input.methods!.forEach((code, i) => {
      const field = `methods[${i}]`;
      if (seen.has(code)) return fail(field, `duplicates method ${code}`);
      seen.add(code);
      if (code === METHOD.savedCard) return fail(field, 'method 11 (saved card) is not accepted here; charge saved cards with /payments/execution');
      if (!CHECKOUT_METHODS.includes(code)) return fail(field, `is not a known method code (${CHECKOUT_METHODS.join(', ')})`);
      if (!merchant.methods.includes(code)) return fail(field, `method ${code} is not enabled for this merchant`, ERRORS.methodNotEnabled);
      const refusal = methodRefusal(code, shape);
      if (refusal) return fail(field, refusal, ERRORS.methodRefused);
      methods.push(code);
    });
  } else {
    methods = defaultMethods(merchant.methods, shape);
  }

  // Installment products.
  let products: InstallmentProduct[] | null = null;
  if (input.installmentProducts !== undefined) {
    products = [];
    if (input.installmentProducts.length > LIMITS.installmentProductsMax) {
      fail('installmentProducts', `must have at most ${LIMITS.installmentProductsMax} products`);
    }
    input.installmentProducts.forEach((prod, i) => {
      const p = parseAmount(prod.price);
      let ok = true;
      if (!p.ok) (ok = false), fail(`installmentProducts[${i}].price`, p.reason);
      else if (p.minor <= 0) (ok = false), fail(`installmentProducts[${i}].price`, 'must be greater than 0');
      else if (p.minor > ctx.maxAmountMinor) (ok = false), fail(`installmentProducts[${i}].price`, 'is above the maximum amount');
      if (!Number.isInteger(prod.quantity) || prod.quantity < 1 || prod.quantity > LIMITS.installmentQuantityMax) {
        ok = false;
        fail(`installmentProducts[${i}].quantity`, `must be an integer from 1 to ${LIMITS.installmentQuantityMax}`);
      }
      if (prod.name !== undefined && (charLength(prod.name) > LIMITS.installmentNameMaxLength || HAS_CONTROL.test(prod.name))) {
        ok = false;
        fail(`installmentProducts[${i}].name`, `must be at most ${LIMITS.installmentNameMaxLength} characters without control characters`);
      }
      if (ok && p.ok) products!.push({ name: prod.name ?? null, price: p.minor, quantity: prod.quantity });
    });
  }
  if (methods.includes(METHOD.installment)) {
    if (!input.installmentProducts?.length) {
      if (explicit) fail('installmentProducts', 'are required when installment (8) is among the methods', ERRORS.installmentMismatch);
      else methods = methods.filter((m) => m !== METHOD.installment); // not offered without products
    } else if (total !== null && products !== null && products.length === input.installmentProducts.length) {
      // BigInt: 100 products × quantity × price can pass 2^53 before it is compared.
      const sum = products.reduce((acc, p) => acc + BigInt(p.price) * BigInt(p.quantity), 0n);
      if (sum !== BigInt(total)) fail('installmentProducts', 'Σ price × quantity must equal amount.total exactly', ERRORS.installmentMismatch);
    }
  }
  if (methods.length === 0 && !errors.some((e) => e.field.startsWith('methods'))) {
    fail('methods', 'no payment method is left for this payment after the merchant settings and request rules', ERRORS.noMethodAvailable);
  }

  // Free text.
  let language: 'KA' | 'EN' = 'KA';
  if (input.language !== undefined) {
    const lang = input.language.toUpperCase();
    if (lang !== 'KA' && lang !== 'EN') fail('language', 'must be KA or EN');
    else language = lang;
  }
  if (input.merchantPaymentId !== undefined) {
    if (charLength(input.merchantPaymentId) > LIMITS.merchantPaymentIdMaxLength || HAS_CONTROL.test(input.merchantPaymentId)) {
      fail('merchantPaymentId', `must be at most ${LIMITS.merchantPaymentIdMaxLength} characters without control characters`);
    }
  }
  if (input.description !== undefined) {
    if (charLength(input.description) > LIMITS.descriptionMaxLength) fail('description', `must be at most ${LIMITS.descriptionMaxLength} characters`);
    else if (HAS_CONTROL.test(input.description)) fail('description', 'must not contain control characters');
  }

  if (errors.length > 0 || total === null) return { ok: false, errors };
  return {
    ok: true,
    payment: {
      currency,
      amount: total,
      subtotal: parts.subtotal,
      tax: parts.tax,
      shipping: parts.shipping,
      returnUrl: input.returnurl,
      callbackUrl,
      extra: input.extra ?? null,
      extra2: extra2Text ?? null,
      split,
      userIp: input.userIpAddress ?? null,
      expirationMinutes,
      methods,
      installmentProducts: methods.includes(METHOD.installment) ? products : null,
      preAuth,
      language,
      merchantPaymentId: input.merchantPaymentId ?? null,
      skipInfoMessage: input.skipInfoMessage === true,
      saveCard,
      saveCardToDate,
      description: input.description ?? null,
    },
  };
}
