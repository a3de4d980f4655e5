// The registry of payment methods: every method module, once. `MethodCode`, `MethodData` and every
// per-method table (here and on the checkout, src/checkout/methods/) derive from BUILT_IN, so a new
// module makes the compiler list each table that lacks it. Tests may register a throwaway method
// (registerMethod) to see it reach every surface; production code registers nothing at run time.
import { LANGUAGES } from '../../i18n/languages.ts';
import { applePay } from './apple-pay.ts';
import { bankLogin } from './bank-login.ts';
import { card } from './card.ts';
import { ertguliPoints } from './ertguli-points.ts';
import { googlePay } from './google-pay.ts';
import { installment } from './installment.ts';
import type { Attempt, PaymentMethod } from './method.ts';
import { savedCard } from './saved-card.ts';
import { webQr } from './web-qr.ts';

/** The methods, in code order. */
export const BUILT_IN = [webQr, card, ertguliPoints, bankLogin, installment, applePay, savedCard, googlePay] as const;

type BuiltIn = (typeof BUILT_IN)[number];
export type MethodCode = BuiltIn['code'];
/** What the acquirer is handed for an attempt, per method (AuthoriseRequest.data). */
export type MethodData = BuiltIn extends infer M ? (M extends PaymentMethod<number, infer D> ? D : never) : never;
/** An attempt the domain runs: its acquirer data and, in a simulated flow, the customer's answer. */
export type AttemptDetails = Attempt<MethodData>;

/** Each method's code by its key: METHOD.card is 5. */
export const METHOD = Object.fromEntries(BUILT_IN.map((m) => [m.key, m.code])) as {
  readonly [M in BuiltIn as M['key']]: M['code'];
};

const registry = new Map<number, PaymentMethod>(BUILT_IN.map((m) => [m.code, m as unknown as PaymentMethod]));

/** Every registered method, in code order. */
export const allMethods = (): PaymentMethod[] => [...registry.values()].sort((a, b) => a.code - b.code);

export const methodOf = (code: number): PaymentMethod | undefined => registry.get(code);

/** A method's name for people, in a language (Georgian unless the language is one we have); an unknown code is shown as its number. */
export const methodLabel = (code: number, lang: string): string =>
  registry.get(code)?.names[LANGUAGES.find((l) => l === lang) ?? 'ka'] ?? String(code);

/**
 * Registers a method beside the built-in ones (tests only: a throwaway method proves that a module
 * alone reaches every surface). Returns the function that removes it again.
 */
export function registerMethod<C extends number, D extends { method: C }, K extends string>(
  m: PaymentMethod<C, D, K>,
): () => void {
  if (registry.has(m.code)) throw new Error(`method ${m.code} is already registered`);
  // Its data is its own: the acquirer's MethodData lists the built-in methods' shapes.
  registry.set(m.code, m as unknown as PaymentMethod);
  return () => void registry.delete(m.code);
}
