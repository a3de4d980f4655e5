// What a customer chose and typed — on the checkout page's forms or through the sandbox simulate
// endpoint — checked by one set of rules and turned into the attempt the domain runs.
import { bankLogin } from '../acquirer/bank-users.ts';
import type { AttemptDetails } from './attempt.ts';
import { checkCardInput, type CardField, type CardInput, type CardProblem } from './card.ts';
import { METHOD } from './methods.ts';

export type CustomerChoice =
  | { method: 5; card: CardInput }
  | { method: 7; login: { username: string; password: string } }
  | { method: number; outcome: 'approve' | 'decline' };

export type ChoiceCheck =
  | { ok: true; details: AttemptDetails }
  /** The card form has mistakes (codes the page words in the customer's language). */
  | { ok: false; cardProblems: Partial<Record<CardField, CardProblem>> }
  /** Unknown internet-bank user or wrong password: a login error, not an attempt. */
  | { ok: false; loginFailed: true }
  | { ok: false; unknownMethod: true };

/** Methods whose flow the customer approves or declines on the spot (wallet sheet, banking app, application). */
const DECIDED_ON_THE_SPOT: readonly number[] = [METHOD.webQr, METHOD.bankLogin, METHOD.installment, METHOD.applePay, METHOD.googlePay];

/** `cardMonth`: the current year and month in the gateway's time zone (cards expire by month). */
export function checkChoice(choice: CustomerChoice, cardMonth: { year: number; month: number }): ChoiceCheck {
  if ('card' in choice) {
    const checked = checkCardInput(choice.card, cardMonth);
    return checked.ok ? { ok: true, details: { method: 5, card: checked.card } } : { ok: false, cardProblems: checked.problems };
  }
  if ('login' in choice) {
    const user = bankLogin(choice.login.username, choice.login.password);
    return user ? { ok: true, details: { method: 7, outcome: user.outcome, declineCode: user.declineCode } } : { ok: false, loginFailed: true };
  }
  if (!DECIDED_ON_THE_SPOT.includes(choice.method)) return { ok: false, unknownMethod: true };
  return { ok: true, details: { method: choice.method as 4 | 7 | 8 | 9 | 14, outcome: choice.outcome } };
}
