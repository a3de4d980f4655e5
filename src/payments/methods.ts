// Which method a payment may offer (SPEC 3): explicit `methods`, the default set, the checkout page,
// saved cards — every rule reads the traits of the method modules (src/payments/methods/), so a
// method's abilities are stated once, in its module.
import { allMethods, methodOf } from './methods/index.ts';

export { CURRENCIES, type Currency, type MethodTraits } from './methods/method.ts';
export { METHOD, type MethodCode } from './methods/index.ts';

/** Methods a customer can choose on the checkout page, in code order. */
export const checkoutMethods = (): number[] =>
  allMethods()
    .filter((m) => m.traits.checkout)
    .map((m) => m.code);

export const methodName = (code: number): string => methodOf(code)?.name ?? `method ${code}`;

export const isCheckoutMethod = (code: number): boolean => methodOf(code)?.traits.checkout === true;

/** The method's flow is the sandbox's simulation only (never offered or run in production). */
export const isSimulatedFlow = (code: number): boolean => methodOf(code)?.traits.simulated === true;

/** An approval with this method can save the customer's card. */
export const savesCard = (code: number): boolean => methodOf(code)?.traits.savesCard === true;

/** The method is offered only with installment products. */
export const needsProducts = (code: number): boolean => methodOf(code)?.traits.needsProducts === true;

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
  const m = methodOf(code);
  if (!m?.traits.checkout) return 'is not a method a customer can pay with at the checkout';
  const t = m.traits;
  const label = `${m.name} (${code})`;
  if (req.production && t.simulated)
    return `${label} is not available in production: its flow exists only in the sandbox's simulation`;
  if (t.currencies && !(t.currencies as readonly string[]).includes(req.currency))
    return `${label} is available in ${t.currencies.join(', ')} only`;
  if (req.split && !t.split) return `${label} is not available for split payments`;
  if (req.preAuth && !t.preAuth) return `${label} is purchase only and cannot be used with preAuth`;
  if (req.saveCard && !t.savesCard) return `${label} cannot be used with saveCard: it yields no card that can be saved`;
  return null;
}

/** The methods offered when the request omits `methods`: merchant-enabled ones the rules allow. */
export function defaultMethods(merchantMethods: readonly number[], req: RequestShape): number[] {
  return checkoutMethods().filter((m) => merchantMethods.includes(m) && methodRefusal(m, req) === null);
}
