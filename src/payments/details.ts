// What a merchant can know of a payment (SPEC 5), as the domain's read model: plain data, amounts in
// minor units, times as ISO strings — stored as is for idempotent replays, rendered by the API.
import type { Queryable } from '../store/db.ts';
import type { PaymentRow } from './row.ts';
import { selectSavedCard, type SavedCardRow } from './saved-card-store.ts';
import { STATUS, type Status } from './state-machine.ts';

export interface PaymentDetails {
  payId: string;
  status: Status;
  currency: string;
  amount: number;
  confirmedAmount: number;
  returnedAmount: number;
  transactionId: string | null;
  paymentMethod: number | null;
  rrn: string | null;
  resultCode: string | null;
  preAuth: boolean;
  /** While WaitingConfirm: when the block is released. */
  preAuthExpiresAt: string | null;
  initiator: 'client' | 'merchant';
  recurringCard: { recId: string; cardMask: string; expiryDate: string } | null;
  paymentCardNumber: string | null;
  merchantPaymentId: string | null;
  extra: string | null;
  extra2: string | null;
  split: { iban: string; amount: number; returnedAmount: number } | null;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
}

/** The payment's details, with its saved card (the one it saved, or the one it charged) when usable. */
export async function paymentDetails(q: Queryable, row: PaymentRow): Promise<PaymentDetails> {
  const recId = row.rec_id ?? row.charged_rec_id;
  return detailsOf(row, recId ? await selectSavedCard(q, recId) : null);
}

/** The payment's details from its row and its saved card as already read (null: none). */
export function detailsOf(row: PaymentRow, card: SavedCardRow | null): PaymentDetails {
  return {
    payId: row.pay_id,
    status: row.status,
    currency: row.currency,
    amount: row.amount,
    confirmedAmount: row.confirmed_amount,
    returnedAmount: row.returned_amount,
    transactionId: row.transaction_id,
    paymentMethod: row.payment_method,
    rrn: row.rrn,
    resultCode: row.result_code,
    preAuth: row.pre_auth,
    preAuthExpiresAt:
      row.status === STATUS.waitingConfirm && row.pre_auth_expires_at ? row.pre_auth_expires_at.toISOString() : null,
    initiator: row.initiator,
    recurringCard:
      card && card.status === 'active'
        ? { recId: card.rec_id, cardMask: card.card_mask, expiryDate: card.valid_to }
        : null,
    paymentCardNumber: row.card_mask,
    merchantPaymentId: row.merchant_payment_id,
    extra: row.extra,
    extra2: row.extra2,
    split: row.split_iban
      ? { iban: row.split_iban, amount: row.split_amount ?? 0, returnedAmount: row.split_returned_amount ?? 0 }
      : null,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
