// The rules of cancel and completion (SPEC 7 and 8) as pure functions of the payment, its earlier
// operations and the request. Amounts in minor units.
import { normaliseIban } from './iban.ts';
import type { PaymentRow } from './row.ts';
import { STATUS } from './statuses.ts';

export type Rejection =
  | { rule: 'status'; reason: string }
  | { rule: 'amount'; reason: string }
  | { rule: 'preauth_partial'; reason: string }
  | { rule: 'same_day'; reason: string }
  | { rule: 'split'; field: 'extra' | 'extra2'; reason: string }
  | { rule: 'window'; reason: string };

export interface CancelRequest {
  amount: number | null;
  splitIban: string | null;
  splitAmount: number | null;
}

export interface EarlierOperation {
  kind: 'refund' | 'void' | 'capture';
  status: 'processing' | 'done' | 'refused';
  business_day: string;
}

/** What is captured and can still be returned, in total and per account. */
export function refundable(p: PaymentRow): { total: number; split: number; merchant: number } {
  const captured = p.confirmed_amount ?? p.amount;
  const total = captured - p.returned_amount;
  if (!p.split_iban) return { total, split: 0, merchant: total };
  const split = (p.split_amount ?? 0) - (p.split_returned_amount ?? 0);
  return { total, split, merchant: total - split };
}

export interface CancelPlan {
  kind: 'refund' | 'void';
  amount: number;
  splitAmount: number | null;
}

/** Checks a cancel against the rules; returns what to do, or why not. */
export function planCancel(p: PaymentRow, req: CancelRequest, earlier: EarlierOperation[], today: string, transactionDay: string): CancelPlan | Rejection {
  if (p.status !== STATUS.succeeded && p.status !== STATUS.partialReturned && p.status !== STATUS.waitingConfirm) {
    return { rule: 'status', reason: `a ${p.status} payment cannot be cancelled` };
  }
  const left = refundable(p);
  const amount = req.amount ?? left.total;
  if (left.total <= 0) return { rule: 'amount', reason: 'nothing is left to return' };
  if (amount <= 0 || amount > left.total) return { rule: 'amount', reason: `amount must be greater than 0 and at most the refundable ${left.total} (minor units)` };

  const isVoid = p.status === STATUS.waitingConfirm;
  if (isVoid && amount !== left.total) {
    return { rule: 'preauth_partial', reason: 'a pre-authorised payment can only be cancelled in full; to return part of it, complete it with the smaller amount and the rest is released' };
  }
  if (!isVoid && today === transactionDay) {
    const doneToday = earlier.filter((o) => o.kind === 'refund' && o.status !== 'refused' && o.business_day === today);
    if (doneToday.length > 0) return { rule: 'same_day', reason: 'a payment can be cancelled only once on the day of the transaction; apply to the bank for the rest' };
  }

  let splitAmount: number | null = null;
  if (p.split_iban) {
    if (req.splitIban === null) return { rule: 'split', field: 'extra', reason: 'is required for a split payment (the IBAN the amount is taken from)' };
    const iban = normaliseIban(req.splitIban);
    if (!iban) return { rule: 'split', field: 'extra', reason: 'is not a valid IBAN' };
    if (iban !== p.split_iban) return { rule: 'split', field: 'extra', reason: 'is not the split account of this payment' };
    if (req.splitAmount === null) return { rule: 'split', field: 'extra2', reason: 'is required for a split payment (the amount taken from that IBAN)' };
    if (req.splitAmount < 0 || req.splitAmount > Math.min(amount, left.split)) {
      return { rule: 'split', field: 'extra2', reason: `must be from 0 to ${Math.min(amount, left.split)} (minor units): not above the amount nor what the split account can still return` };
    }
    if (amount - req.splitAmount > left.merchant) {
      return { rule: 'split', field: 'extra2', reason: `the merchant's part (amount − extra2) must not exceed its refundable ${left.merchant} (minor units)` };
    }
    splitAmount = req.splitAmount;
  }
  return { kind: isVoid ? 'void' : 'refund', amount, splitAmount };
}

/** Checks a completion (SPEC 8). */
export function checkCompletion(p: PaymentRow, amount: number, now: Date): Rejection | null {
  if (p.status !== STATUS.waitingConfirm) return { rule: 'status', reason: `only a WaitingConfirm payment can be completed; this one is ${p.status}` };
  if (p.pre_auth_expires_at && now.getTime() >= p.pre_auth_expires_at.getTime()) return { rule: 'window', reason: 'the pre-authorisation block has expired' };
  if (amount <= 0 || amount > p.amount) return { rule: 'amount', reason: `amount must be greater than 0 and at most the authorised ${p.amount} (minor units)` };
  if (p.split_amount !== null && amount < p.split_amount) return { rule: 'amount', reason: `amount must be at least the split amount ${p.split_amount} (minor units)` };
  return null;
}
