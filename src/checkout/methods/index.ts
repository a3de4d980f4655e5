// The checkout's method modules, one per payment method of the registry (src/payments/methods/):
// the table is a Record over MethodCode, so a method added there is a compile error here until it
// has its page (or says it has none). Tests may register a throwaway method's page beside them.
import { methodLabel, type MethodCode } from '../../payments/methods/index.ts';
import type { Html } from '../../html/html.ts';
import type { Texts } from '../i18n.ts';
import { icon } from '../marks.ts';
import { applePayCheckout } from './apple-pay.ts';
import { bankLoginCheckout } from './bank-login.ts';
import { cardCheckout } from './card.ts';
import { ertguliPointsCheckout } from './ertguli-points.ts';
import { googlePayCheckout } from './google-pay.ts';
import { installmentCheckout } from './installment.ts';
import { languageOf, type CheckoutMethod } from './method.ts';
import { webQrCheckout } from './web-qr.ts';

export type { CheckoutMethod, Form, FormReading, PanelEnv, PanelState } from './method.ts';

const BUILT_IN = {
  4: webQrCheckout,
  5: cardCheckout,
  6: ertguliPointsCheckout,
  7: bankLoginCheckout,
  8: installmentCheckout,
  9: applePayCheckout,
  // A saved card is charged by the merchant, never chosen on the page.
  11: null,
  14: googlePayCheckout,
} satisfies Record<MethodCode, CheckoutMethod | null>;

const registry = new Map<number, CheckoutMethod>(
  Object.values(BUILT_IN).flatMap((m) => (m ? [[m.code, m] as const] : [])),
);

export const checkoutMethodOf = (code: number): CheckoutMethod | undefined => registry.get(code);

/** The methods of a payment as the page shows them, in tile order. */
export const inTileOrder = (codes: readonly number[]): number[] =>
  [...registry.values()]
    .sort((a, b) => a.order - b.order)
    .map((m) => m.code)
    .filter((c) => codes.includes(c));

/** Every notice a method's cancellation leads to, with its text. */
export const methodNotices = () =>
  Object.assign({}, ...[...registry.values()].map((m) => m.notices ?? {})) as Record<
    string,
    (t: Texts, name: string) => string
  >;

/** A method's name on the page. */
export const methodName = (t: Texts, code: number) => methodLabel(code, languageOf(t));

/** A method's name on its tile (where a long word may break). */
export const tileName = (t: Texts, code: number) => registry.get(code)?.tile?.[languageOf(t)] ?? methodName(t, code);

/** The picture on a method's tile. */
export const methodIcon = (code: number): Html => registry.get(code)?.icon() ?? icon('card');

/** Registers a throwaway method's page (tests only); returns the function that removes it. */
export function registerCheckoutMethod(m: CheckoutMethod): () => void {
  if (registry.has(m.code)) throw new Error(`checkout method ${m.code} is already registered`);
  registry.set(m.code, m);
  return () => void registry.delete(m.code);
}
