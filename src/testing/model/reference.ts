// The reference model of SPEC §6–§9, written from the spec and not from the code: what a payment's
// status and amounts must be after each thing a merchant, a customer or time does to it. One rule
// is shared with the gateway on purpose: when refund, void and completion are open
// (rules/window.ts), so the API, the dashboard and this model cannot disagree about the window.
import { operationWindow } from '../../payments/rules/window.ts';
export type Status =
  | 'Created'
  | 'Processing'
  | 'Succeeded'
  | 'Failed'
  | 'Expired'
  | 'WaitingConfirm'
  | 'Returned'
  | 'PartialReturned';

export const MAX_ATTEMPTS = 3; // SPEC §6, KARIBCHE_MAX_ATTEMPTS default
export const EXPIRATION_MINUTES = 15; // every model payment is created with it
export const BLOCK_DAYS = 30; // SPEC §6 default pre-authorisation block window

export interface ModelPayment {
  payId: string;
  amount: number; // minor units
  preAuth: boolean;
  saveCard: boolean;
  split: number | null; // minor units taken by the split account
  methods: number[]; // what the payment offers (SPEC 3, 4)
  status: Status;
  confirmed: number;
  returned: number;
  splitReturned: number;
  attempts: number;
  createdAtMs: number; // sandbox clock
  paidDay: string | null; // business day of the approval
  blockUntilMs: number | null; // end of a pre-authorisation's block window (sandbox clock)
  cancelledOnDay: Set<string>; // business days with an accepted refund
  released: boolean; // a pre-authorisation its block's end returned
  card: 'none' | 'pending' | 'active' | 'deleted';
  recId: string | null;
  /** A saved-card charge is paid with its owner's card: get-payment shows that card while it is active. */
  cardOwner: ModelPayment | null;
  finalEntries: number;
  expectsCallbacks: boolean;
}

export interface Model {
  payments: ModelPayment[];
  nowMs: number; // sandbox clock as the model believes it
  restarts: number;
}

const FINAL = new Set<Status>(['Succeeded', 'Failed', 'Expired', 'WaitingConfirm', 'Returned', 'PartialReturned']);

/** The payment whose saved card this one shows and charges. */
export const cardHolder = (p: ModelPayment): ModelPayment => p.cardOwner ?? p;

export function enter(p: ModelPayment, to: Status): void {
  p.status = to;
  if (FINAL.has(to)) p.finalEntries++;
}

/** Time passing: a Created payment past its expiration minutes is Expired (§6); a pre-authorisation
 * past its block window goes back to the customer in full (Returned). */
export function expireDue(m: Model): void {
  for (const p of m.payments) {
    if (p.status === 'Created' && m.nowMs >= p.createdAtMs + EXPIRATION_MINUTES * 60_000) enter(p, 'Expired');
    if (p.status === 'WaitingConfirm' && p.blockUntilMs !== null && m.nowMs >= p.blockUntilMs) {
      p.returned = p.amount;
      p.splitReturned = p.split ?? 0;
      p.released = true;
      enter(p, 'Returned');
    }
  }
}

/** Which of refund, void and completion the payment allows now: the gateway's one window function. */
function windowOf(p: ModelPayment, nowMs: number, today: string) {
  return operationWindow(
    {
      status: p.status,
      blockUntil: p.blockUntilMs === null ? null : new Date(p.blockUntilMs),
      transactionDay: p.paidDay,
      refundDays: [...p.cancelledOnDay],
      released: p.released,
    },
    new Date(nowMs),
    today,
  );
}

/** The customer pays: approved, declined, or a 3-D Secure challenge that passes or fails (§6, §14 test cards). */
export function pay(p: ModelPayment, approved: boolean, day: string, nowMs: number, blockDays = BLOCK_DAYS): void {
  p.attempts++;
  if (approved) {
    p.paidDay = day;
    if (p.preAuth) {
      p.blockUntilMs = nowMs + blockDays * 86_400_000;
      enter(p, 'WaitingConfirm');
    } else {
      p.confirmed = p.amount;
      enter(p, 'Succeeded');
    }
    if (p.saveCard) p.card = p.preAuth ? 'pending' : 'active';
  } else if (p.attempts >= MAX_ATTEMPTS) enter(p, 'Failed');
  else p.status = 'Created';
}

/** What a cancel of `amount` (null: everything) does, or why it is refused (§7). */
export function planCancel(
  p: ModelPayment,
  amount: number | null,
  today: string,
  nowMs: number,
): { ok: true; amount: number } | { ok: false } {
  const w = windowOf(p, nowMs, today);
  if (p.status === 'WaitingConfirm' ? w.void : w.refund) return { ok: false };
  const held = p.status === 'WaitingConfirm' ? p.amount : p.confirmed;
  const left = held - p.returned;
  const a = amount ?? left;
  if (left <= 0 || a <= 0 || a > left) return { ok: false };
  if (p.status === 'WaitingConfirm' && a !== left) return { ok: false };
  return { ok: true, amount: a };
}

export function cancel(p: ModelPayment, amount: number, splitPart: number, today: string): void {
  const isVoid = p.status === 'WaitingConfirm';
  p.returned += amount;
  p.splitReturned += splitPart;
  p.cancelledOnDay.add(today);
  if (isVoid) enter(p, 'Returned');
  else enter(p, p.returned === p.confirmed ? 'Returned' : 'PartialReturned');
}

/** Completion (§8): only from WaitingConfirm within its block window, 0 < amount ≤ authorised, ≥ the split amount. */
export function canComplete(p: ModelPayment, amount: number, today: string, nowMs: number): boolean {
  return windowOf(p, nowMs, today).complete === null && amount > 0 && amount <= p.amount && amount >= (p.split ?? 0);
}

export function complete(p: ModelPayment, amount: number): void {
  p.confirmed = amount;
  enter(p, 'Succeeded');
  if (p.card === 'pending') p.card = 'active';
}

/** The split part of a cancel that keeps both accounts within what they can still return (§7). */
export function splitPart(p: ModelPayment, amount: number): number {
  if (p.split === null) return 0;
  const held = p.status === 'WaitingConfirm' ? p.amount : p.confirmed;
  const merchantLeft = held - p.returned - (p.split - p.splitReturned);
  return Math.max(0, amount - merchantLeft);
}

/**
 * What the dashboard must offer on the payment's page now: exactly the operations the API accepts
 * for the whole amount (issue 26, class d: the dashboard and the API decide on the same clock).
 */
export function offeredActions(p: ModelPayment, today: string, nowMs: number): string[] {
  const offered: string[] = [];
  if (canComplete(p, p.amount, today, nowMs)) offered.push('complete');
  if (planCancel(p, null, today, nowMs).ok) offered.push(p.status === 'WaitingConfirm' ? 'void' : 'refund');
  return offered.sort();
}
