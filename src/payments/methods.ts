// Payment methods (SPEC 3) and what each one can do, as one table. Every rule about which method a
// payment may offer (explicit `methods`, the default set, the checkout page, saved cards) is read
// from these traits, so a method's abilities are stated once.

export const METHOD = {
  webQr: 4,
  card: 5,
  ertguliPoints: 6,
  bankLogin: 7,
  installment: 8,
  applePay: 9,
  savedCard: 11,
  googlePay: 14,
} as const;

export type MethodCode = (typeof METHOD)[keyof typeof METHOD];

export const CURRENCIES = ['GEL', 'USD', 'EUR'] as const;
export type Currency = (typeof CURRENCIES)[number];

export interface MethodTraits {
  name: string;
  /** A customer can choose it on the checkout page (11 only appears in responses). */
  checkout: boolean;
  /** Currencies it works in; null: every currency. */
  currencies: readonly Currency[] | null;
  /** It can pre-authorise (block) instead of purchase. */
  preAuth: boolean;
  /** It can carry a split allocation. */
  split: boolean;
  /** An approval yields a card the acquirer can tokenise for later charges (saveCard). */
  savesCard: boolean;
  /**
   * Its flow exists only as the sandbox's simulation (SPEC 14: the banking app behind the QR code,
   * the internet bank, the wallet sheets, the points and installment forms): the acquirer interface
   * has no real path for it, the customer's click decides. Production never offers it.
   */
  simulated: boolean;
}

export const METHODS: Readonly<Record<MethodCode, MethodTraits>> = {
  4: { name: 'Web QR', checkout: true, currencies: null, preAuth: true, split: true, savesCard: false, simulated: true },
  5: { name: 'Card', checkout: true, currencies: null, preAuth: true, split: true, savesCard: true, simulated: false },
  // Ertguli loyalty points (the bank's older documentation and its PHP framework): GEL only, as the
  // bank documents. Points are spent, not blocked: purchase only. Not among the split methods the
  // bank lists (Web QR, card, bank login, Apple Pay, Google Pay), and no card to save. Off until
  // the operator enables it for a merchant.
  6: { name: 'Ertguli points', checkout: true, currencies: ['GEL'], preAuth: false, split: false, savesCard: false, simulated: true },
  7: { name: 'Internet bank login', checkout: true, currencies: null, preAuth: true, split: true, savesCard: false, simulated: true },
  8: { name: 'Installment', checkout: true, currencies: ['GEL'], preAuth: true, split: false, savesCard: false, simulated: true },
  9: { name: 'Apple Pay', checkout: true, currencies: null, preAuth: true, split: true, savesCard: false, simulated: true },
  11: { name: 'Saved card', checkout: false, currencies: null, preAuth: true, split: true, savesCard: false, simulated: false },
  // Google Pay: purchase only (Visa/Mastercard with 3-D Secure); its card can be saved.
  14: { name: 'Google Pay', checkout: true, currencies: null, preAuth: false, split: true, savesCard: true, simulated: true },
};

const isMethodCode = (code: number): code is MethodCode => Object.hasOwn(METHODS, code);

/** Methods a customer can choose on the checkout page, in code order. */
export const CHECKOUT_METHODS: readonly number[] = (Object.keys(METHODS).map(Number) as MethodCode[]).filter((m) => METHODS[m].checkout);

export const methodName = (code: number): string => (isMethodCode(code) ? METHODS[code].name : `method ${code}`);

export const isCheckoutMethod = (code: number): boolean => isMethodCode(code) && METHODS[code].checkout;

/** The method's flow is the sandbox's simulation only (never offered or run in production). */
export const isSimulatedFlow = (code: number): boolean => isMethodCode(code) && METHODS[code].simulated;

/** An approval with this method can save the customer's card. */
export const savesCard = (code: number): boolean => isMethodCode(code) && METHODS[code].savesCard;

export interface RequestShape {
  currency: string;
  preAuth: boolean;
  saveCard: boolean;
  split: boolean;
  /** Production: only methods with a real acquirer path (no simulated flow). */
  production?: boolean;
}

/**
 * Why a method cannot be offered for this request, or null when it can. Used both to reject
 * explicit requests and to filter the default set.
 */
export function methodRefusal(code: number, req: RequestShape): string | null {
  if (!isMethodCode(code) || !METHODS[code].checkout) return 'is not a method a customer can pay with at the checkout';
  const m = METHODS[code];
  const label = `${m.name} (${code})`;
  if (req.production && m.simulated) return `${label} is not available in production: its flow exists only in the sandbox's simulation`;
  if (m.currencies && !(m.currencies as readonly string[]).includes(req.currency)) return `${label} is available in ${m.currencies.join(', ')} only`;
  if (req.split && !m.split) return `${label} is not available for split payments`;
  if (req.preAuth && !m.preAuth) return `${label} is purchase only and cannot be used with preAuth`;
  if (req.saveCard && !m.savesCard) return `${label} cannot be used with saveCard: it yields no card that can be saved`;
  return null;
}

/** The methods offered when the request omits `methods`: merchant-enabled ones the rules allow. */
export function defaultMethods(merchantMethods: readonly number[], req: RequestShape): number[] {
  return CHECKOUT_METHODS.filter((m) => merchantMethods.includes(m) && methodRefusal(m, req) === null);
}
