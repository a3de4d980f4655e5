// The rules of cancel (SPEC 7) and completion (SPEC 8), as pure functions of the payment, its earlier
// operations and the request. They throw the catalogue's errors; amounts are minor units inside and
// decimals in what the merchant reads.
import { ERRORS, type ErrorDef } from '../../errors/catalogue.ts';
import { Violations, gatewayError } from '../../errors/gateway-error.ts';
import { normaliseIban } from '../iban.ts';
import { formatMinor } from '../money.ts';
import type { PaymentRow } from '../row.ts';
import { STATUS } from '../state-machine.ts';
import { amount as amountRule } from './fields.ts';
import type { OperationWindow } from './window.ts';

/** A cancel request after its values are checked: null means omitted. */
export interface CancelRequest {
  amount: number | null;
  splitIban: string | null;
  splitAmount: number | null;
  /**
   * Which cancel the caller means, when it says (the dashboard's Refund and Void buttons): a form
   * shown for a paid payment must not void it, nor one shown for a pre-authorisation refund it, if
   * the status changed in between. The API's cancel leaves it out: the status decides.
   */
  expect?: 'refund' | 'void';
}

export interface EarlierOperation {
  kind: 'refund' | 'void' | 'capture';
  status: 'processing' | 'done' | 'refused';
  business_day: string;
}

export interface CancelPlan {
  kind: 'refund' | 'void';
  amount: number;
  splitAmount: number | null;
}

/** A decimal amount's shape (what the payment allows is the rules' business, below). */
const decimal = (v: Violations, field: string, raw: unknown) =>
  amountRule(v, field, raw, { min: 0, max: Number.MAX_SAFE_INTEGER });

/** The values of a cancel request: decimal amounts, the split IBAN. */
export function checkCancelRequest(input: { amount?: unknown; extra?: string; extra2?: unknown }): CancelRequest {
  const v = new Violations();
  const req: CancelRequest = {
    amount: input.amount === undefined ? null : decimal(v, 'amount', input.amount),
    splitIban: input.extra === undefined || input.extra === '' ? null : input.extra,
    splitAmount: input.extra2 === undefined || input.extra2 === '' ? null : decimal(v, 'extra2', input.extra2),
  };
  v.throwIfAny();
  return req;
}

/** The completion's amount. */
export function checkCompletionRequest(input: { amount: unknown }): number {
  const v = new Violations();
  const minor = decimal(v, 'amount', input.amount);
  v.throwIfAny();
  return minor!;
}

const money = (minor: number) => formatMinor(minor);

function reject(def: ErrorDef, field: string, reason: string): never {
  throw gatewayError(def, { detail: `${field} ${reason}`, fields: [{ field, reason, rule: def }] });
}

/**
 * What is still with the merchant and can be returned, in total and per account. A purchase has
 * captured its confirmed amount; a pre-authorisation (WaitingConfirm) holds its authorised amount,
 * which a void releases.
 */
export function returnable(p: PaymentRow): { total: number; split: number; merchant: number } {
  const held = p.status === STATUS.waitingConfirm ? p.amount : p.confirmed_amount;
  const total = held - p.returned_amount;
  if (!p.split_iban) return { total, split: 0, merchant: total };
  const split = (p.split_amount ?? 0) - (p.split_returned_amount ?? 0);
  return { total, split, merchant: total - split };
}

/** Checks a cancel against the rules; returns what to do, or throws why not. */
export function planCancel(p: PaymentRow, req: CancelRequest, window: OperationWindow): CancelPlan {
  const isVoid = p.status === STATUS.waitingConfirm;
  // The operation the caller means (the status decides when it does not say), in its window.
  const blocked = window[req.expect ?? (isVoid ? 'void' : 'refund')];
  if (blocked) throw gatewayError(blocked.def, { detail: blocked.detail });
  const left = returnable(p);
  if (left.total <= 0) reject(ERRORS.amountNotRefundable, 'amount', 'cannot be returned: nothing is left to return');
  const amount = req.amount ?? left.total;
  if (amount <= 0 || amount > left.total)
    reject(
      ERRORS.amountNotRefundable,
      'amount',
      `must be greater than 0 and at most the refundable ${money(left.total)}`,
    );

  if (isVoid && amount !== left.total) {
    throw gatewayError(ERRORS.preAuthPartialCancel, {
      detail:
        'A pre-authorised payment can only be cancelled in full; to return part of it, complete it with the smaller amount and the rest is released',
    });
  }

  let splitAmount: number | null = null;
  if (p.split_iban) {
    if (req.splitIban === null)
      reject(ERRORS.splitCancelInvalid, 'extra', 'is required for a split payment (the IBAN the amount is taken from)');
    const iban = normaliseIban(req.splitIban);
    if (!iban) reject(ERRORS.splitCancelInvalid, 'extra', 'is not a valid IBAN');
    if (iban !== p.split_iban) reject(ERRORS.splitCancelInvalid, 'extra', 'is not the split account of this payment');
    if (req.splitAmount === null)
      reject(ERRORS.splitCancelInvalid, 'extra2', 'is required for a split payment (the amount taken from that IBAN)');
    const most = Math.min(amount, left.split);
    if (req.splitAmount > most)
      reject(
        ERRORS.splitCancelInvalid,
        'extra2',
        `must be from 0 to ${money(most)}: not above the amount nor what the split account can still return`,
      );
    if (amount - req.splitAmount > left.merchant) {
      reject(
        ERRORS.splitCancelInvalid,
        'extra2',
        `must leave the merchant's part (amount − extra2) within its refundable ${money(left.merchant)}`,
      );
    }
    splitAmount = req.splitAmount;
  }
  return { kind: isVoid ? 'void' : 'refund', amount, splitAmount };
}

/** Checks a completion (SPEC 8); throws why not. */
export function checkCompletion(p: PaymentRow, amount: number, window: OperationWindow): void {
  if (window.complete) throw gatewayError(window.complete.def, { detail: window.complete.detail });
  if (amount <= 0 || amount > p.amount)
    reject(
      ERRORS.amountNotRefundable,
      'amount',
      `must be greater than 0 and at most the authorised ${money(p.amount)}`,
    );
  if (p.split_amount !== null && amount < p.split_amount)
    reject(ERRORS.amountNotRefundable, 'amount', `must be at least the split amount ${money(p.split_amount)}`);
}
