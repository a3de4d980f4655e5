// The one step every approval goes through — card (frictionless or after 3-D Secure), Web QR, bank
// login, wallets, installment, saved-card execution, and the reconciler settling a lost answer: the
// same status, the same fields, and the card saved when the payment asked for it and the method
// yields a card that can be saved.
import type { Logger } from 'pino';
import type { AcquirerResult } from '../acquirer/acquirer.ts';
import type { Queryable } from '../store/db.ts';
import { savesCard } from './methods.ts';
import type { PaymentRow } from './row.ts';
import { insertSavedCard } from './saved-card-store.ts';
import { STATUS, type Status } from './state-machine.ts';
import type { PaymentPatch } from './store.ts';

export type Approved = Extract<AcquirerResult, { outcome: 'approved' }>;

/** The status and columns an approval gives a payment. */
export function approval(
  row: Pick<PaymentRow, 'pre_auth' | 'amount'>,
  result: Approved,
  now: Date,
): { to: Status; patch: PaymentPatch } {
  return {
    to: row.pre_auth ? STATUS.waitingConfirm : STATUS.succeeded,
    patch: {
      transaction_id: result.transactionId,
      rrn: result.rrn,
      result_code: 'approved',
      card_mask: result.cardMask ?? null,
      card_expiry: result.cardExpiry ?? null,
      challenge_id: null,
      pre_auth_expires_at: row.pre_auth ? new Date(now.getTime() + result.blockDays * 86_400_000) : null,
      // A purchase is captured at once; a pre-authorisation only holds the amount until completion.
      confirmed_amount: row.pre_auth ? 0 : row.amount,
      paid_at: now,
    },
  };
}

/** Whether approving this payment must also save its card (in the same transaction). */
export const savesCardOnApproval = (row: Pick<PaymentRow, 'save_card' | 'payment_method'>) =>
  row.save_card && row.payment_method !== null && savesCard(row.payment_method);

/** Saves the approved payment's card when it asked for it; a card is only ever kept as the acquirer's token. */
export async function keepCard(
  q: Queryable,
  approved: PaymentRow,
  result: Approved,
  now: Date,
  log: Logger,
): Promise<void> {
  if (!savesCardOnApproval(approved)) return;
  if (!result.cardToken || !result.cardMask || !result.cardExpiry) {
    log.warn(
      { payId: approved.pay_id, method: approved.payment_method },
      'approved with saveCard but the acquirer returned no card token; no card saved',
    );
    return;
  }
  await insertSavedCard(
    q,
    approved,
    { token: result.cardToken, mask: result.cardMask, expiry: result.cardExpiry },
    now,
  );
}
