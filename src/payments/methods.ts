// Payment method codes (SPEC 3) and which of them a given request may offer.

export const METHOD = {
  webQr: 4,
  card: 5,
  bankLogin: 7,
  installment: 8,
  applePay: 9,
  savedCard: 11,
  googlePay: 14,
} as const;

export type MethodCode = (typeof METHOD)[keyof typeof METHOD];

/** Methods a customer can choose on the checkout page (11 only appears in responses). */
export const CHECKOUT_METHODS: readonly number[] = [4, 5, 7, 8, 9, 14];

export const METHOD_NAMES: Record<number, string> = {
  4: 'Web QR',
  5: 'Card',
  7: 'Internet bank login',
  8: 'Installment',
  9: 'Apple Pay',
  11: 'Saved card',
  14: 'Google Pay',
};

export const CURRENCIES = ['GEL', 'USD', 'EUR'] as const;
export type Currency = (typeof CURRENCIES)[number];

export interface RequestShape {
  currency: string;
  preAuth: boolean;
  saveCard: boolean;
  split: boolean;
}

/**
 * Why a method cannot be offered for this request, or null when it can. One table of the
 * request-level rules, used both to reject explicit requests and to filter the default set.
 */
export function methodRefusal(code: number, req: RequestShape): string | null {
  if (code === METHOD.installment) {
    if (req.currency !== 'GEL') return 'installment (8) is available in GEL only';
    if (req.split) return 'installment (8) is not available for split payments';
  }
  if (code === METHOD.googlePay && req.preAuth) return 'Google Pay (14) is purchase only and cannot be used with preAuth';
  if (req.saveCard && (code === METHOD.webQr || code === METHOD.installment || code === METHOD.applePay)) {
    return `${METHOD_NAMES[code]} (${code}) cannot be used with saveCard`;
  }
  return null;
}

/** The methods offered when the request omits `methods`: merchant-enabled ones the rules allow. */
export function defaultMethods(merchantMethods: readonly number[], req: RequestShape): number[] {
  return CHECKOUT_METHODS.filter((m) => merchantMethods.includes(m) && methodRefusal(m, req) === null);
}
