// What a payment method is, as one module on a fixed interface (src/payments/methods/*.ts, listed in
// index.ts): its code, its traits, its names, how a customer's choice is checked and turned into
// the data the acquirer is handed. Everything else (checks at create, the checkout, the dashboard,
// the sandbox, the CLI) reads these modules through the registry instead of knowing method numbers.
import type { Language } from '../../i18n/languages.ts';
import type { SimulatedAnswer } from '../../acquirer/simulation/instructions.ts';
import type { CardField, CardInput, CardProblem } from '../card.ts';

export const CURRENCIES = ['GEL', 'USD', 'EUR'] as const;
export type Currency = (typeof CURRENCIES)[number];

export interface MethodTraits {
  /** A customer can choose it on the checkout page (saved card only appears in responses). */
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
  /** Offered only with the products the customer's application lists (installmentProducts). */
  needsProducts: boolean;
  /** Its simulated bank can answer late (sandbox `later`). */
  delayable: boolean;
}

/** What a customer chose and typed, on the checkout's forms or in the sandbox simulate body; each method reads its part. */
export interface ChoiceInput {
  /** The answer in a flow decided on the spot (wallet sheet, banking app, points, application). */
  outcome?: 'approve' | 'decline';
  /** The simulated bank answers minutes later. */
  later?: boolean;
  card?: CardInput;
  login?: { username: string; password: string };
}

/** An attempt the domain runs: the method's data for the acquirer and, in a simulated flow, the customer's answer. */
export type Attempt<D> = D & { answer?: SimulatedAnswer };

export type ChoiceCheck<D = { method: number }> =
  | { ok: true; details: Attempt<D> }
  /** The card form has mistakes (codes the page words in the customer's language). */
  | { ok: false; cardProblems: Partial<Record<CardField, CardProblem>> }
  /** Unknown internet-bank user or wrong password: a login error, not an attempt. */
  | { ok: false; loginFailed: true }
  | { ok: false; unknownMethod: true }
  /** A late answer was asked of a flow that has none. */
  | { ok: false; notDelayable: true };

export interface ChoiceContext {
  /** The current year and month in the gateway's time zone (cards expire by month). */
  cardMonth: { year: number; month: number };
}

/**
 * One payment method. `D` is the data it hands the acquirer (AuthoriseRequest.data): always its
 * code as `method`, plus what a connector needs for it (a card, a token, a wallet).
 */
export interface PaymentMethod<
  C extends number = number,
  D extends { method: C } = { method: C },
  K extends string = string,
> {
  code: C;
  /** A name for code (METHOD.webQr) and docs; camelCase. */
  key: K;
  /** The name in API messages and docs ("Web QR (4) is not offered …"). */
  name: string;
  /** The name people read on the checkout, the dashboard, the CLI, per language. */
  names: Record<Language, string>;
  traits: MethodTraits;
  /** How a customer approves it in the sandbox (its test data): the registry's tests pay every method with it. */
  sandboxApproval?: ChoiceInput;
  /** The customer's choice checked and turned into an attempt (or why not). */
  choose(input: ChoiceInput, ctx: ChoiceContext): ChoiceCheck<D>;
}

export const defineMethod = <const C extends number, const K extends string, D extends { method: C }>(
  m: PaymentMethod<C, D, K>,
) => m;

/**
 * The choice of a flow the customer approves or declines on the spot, in the simulation: `declineCode`
 * says why a decline is declined (too few points is "not sufficient funds").
 */
export function spotAnswer<C extends number>(
  code: C,
  traits: Pick<MethodTraits, 'delayable'>,
  input: ChoiceInput,
  declineCode?: string,
): ChoiceCheck<{ method: C }> {
  if (input.later && !traits.delayable) return { ok: false, notDelayable: true };
  const outcome = input.outcome ?? 'approve';
  const code_ = outcome === 'decline' ? declineCode : undefined;
  return {
    ok: true,
    details: {
      method: code,
      answer: { outcome, ...(code_ ? { declineCode: code_ } : {}), ...(input.later ? { later: true } : {}) },
    },
  };
}
