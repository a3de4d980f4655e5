// The one policy of the payment rules: every limit a rule checks is here, and every entry point
// (create, saved-card execution, cancel, completion, the checkout forms, sandbox simulate) composes
// the same small validators that read it.
import type { Merchant } from '../../merchants/merchant.ts';

export const POLICY = {
  extraMaxLength: 25,
  extra2MaxLength: 52,
  descriptionMaxLength: 30,
  merchantPaymentIdMaxLength: 64,
  urlMaxLength: 2048,
  expirationMinutesMin: 1,
  expirationMinutesMax: 1440,
  expirationMinutesDefault: 12,
  splitMaxPercent: 99,
  splitCurrency: 'GEL',
  installmentProductsMax: 100,
  installmentNameMaxLength: 200,
  installmentQuantityMax: 1_000_000,
  // What a customer types (checkout forms, sandbox simulate): rules/customer.ts.
  cardHolderMinLength: 2,
  cardHolderMaxLength: 100,
  /** An expiry further ahead than this many years is a typing mistake. */
  cardExpiryYearsAhead: 25,
  securityCodeDigits: { min: 3, max: 4 },
  bankLoginMaxLength: 100,
  /** A 3-D Secure code longer than this (or with control characters) is no code: authentication fails. */
  challengeCodeMaxLength: 16,
} as const;

/** What the rules of one request are checked against. */
export interface RuleContext {
  merchant: Merchant;
  /** KARIBCHE_MAX_AMOUNT in minor units. */
  maxAmountMinor: number;
  /** The bank code a split IBAN must carry (KARIBCHE_BANK_CODE). */
  bankCode: string;
  /** Business time now, and the time zone of the business day and card months. */
  now: Date;
  timeZone: string;
  /** Production mode: the sandbox's simulated flows are never offered (methods.ts `simulated`). */
  production: boolean;
}
