// What a customer chose and typed — on the checkout page's forms or through the sandbox simulate
// endpoint — checked by one set of rules and turned into the attempt the domain runs.
import { bankLogin } from '../acquirer/bank-users.ts';
import type { AttemptDetails } from './attempt.ts';
import type { CardField, CardInput, CardProblem } from './card.ts';
import { bankLoginInput, checkCardInput } from './rules/customer.ts';
import { METHOD } from './methods.ts';

/** The customer's answer in a flow decided on the spot; `later`: the bank answers minutes later. */
export interface SpotAnswer {
  outcome: 'approve' | 'decline';
  later?: boolean;
}

export type CustomerChoice =
  | { method: 5; card: CardInput }
  | { method: 7; login: { username: string; password: string } }
  | ({ method: number } & SpotAnswer);

export type ChoiceCheck =
  | { ok: true; details: AttemptDetails }
  /** The card form has mistakes (codes the page words in the customer's language). */
  | { ok: false; cardProblems: Partial<Record<CardField, CardProblem>> }
  /** Unknown internet-bank user or wrong password: a login error, not an attempt. */
  | { ok: false; loginFailed: true }
  | { ok: false; unknownMethod: true }
  /** A late answer was asked of a flow that has none (only the banking app and the bank answer late). */
  | { ok: false; notDelayable: true };

/** Methods whose flow the customer approves or declines on the spot (wallet sheet, banking app, points, application). */
const DECIDED_ON_THE_SPOT: readonly number[] = [METHOD.webQr, METHOD.ertguliPoints, METHOD.bankLogin, METHOD.installment, METHOD.applePay, METHOD.googlePay];

/** Flows whose answer can come late: the banking app behind a QR code, the internet bank. */
export const DELAYABLE: readonly number[] = [METHOD.webQr, METHOD.bankLogin];

/** Why a flow declined on the spot is declined: points are spent, so too few of them is "not sufficient funds". */
const SPOT_DECLINE: Readonly<Record<number, string>> = { [METHOD.ertguliPoints]: 'decline_not_sufficient_funds' };

/** `cardMonth`: the current year and month in the gateway's time zone (cards expire by month). */
export function checkChoice(choice: CustomerChoice, cardMonth: { year: number; month: number }): ChoiceCheck {
  if ('card' in choice) {
    const checked = checkCardInput(choice.card, cardMonth);
    return checked.ok ? { ok: true, details: { method: 5, card: checked.card } } : { ok: false, cardProblems: checked.problems };
  }
  if ('login' in choice) {
    const login = bankLoginInput(choice.login);
    const user = login && bankLogin(login.username, login.password);
    return user ? { ok: true, details: { method: 7, outcome: user.outcome, declineCode: user.declineCode, later: user.delayed } } : { ok: false, loginFailed: true };
  }
  if (!DECIDED_ON_THE_SPOT.includes(choice.method)) return { ok: false, unknownMethod: true };
  if (choice.later && !DELAYABLE.includes(choice.method)) return { ok: false, notDelayable: true };
  const declineCode = choice.outcome === 'decline' ? SPOT_DECLINE[choice.method] : undefined;
  return { ok: true, details: { method: choice.method as SpotMethod, outcome: choice.outcome, ...(declineCode ? { declineCode } : {}), ...(choice.later ? { later: true } : {}) } };
}

type SpotMethod = Extract<AttemptDetails, { outcome: unknown }>['method'];
