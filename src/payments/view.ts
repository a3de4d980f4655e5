// What merchants see of a payment: the create response (seed 2.4) and the get response (SPEC 5).
import { toJsonAmount, toJsonAmountOrNull } from './money.ts';
import type { PaymentRow } from './row.ts';
import { STATUS } from './statuses.ts';

export interface Link {
  uri: string;
  method: 'GET' | 'REDIRECT';
  rel: 'self' | 'approval_url';
}

/** links[1] must stay the approval URL: some clients of the original API read it by index. */
export function paymentLinks(publicUrl: string, productPath: string, payId: string): Link[] {
  return [
    { uri: `${publicUrl}${productPath}/payments/${payId}`, method: 'GET', rel: 'self' },
    { uri: `${publicUrl}/checkout/${payId}`, method: 'REDIRECT', rel: 'approval_url' },
  ];
}

const OK = { httpStatusCode: 200, developerMessage: null, userMessage: null } as const;

export function createdView(row: Pick<PaymentRow, 'pay_id' | 'currency' | 'amount' | 'rec_id' | 'pre_auth' | 'expiration_minutes'>, links: Link[]) {
  return {
    payId: row.pay_id,
    status: STATUS.created,
    currency: row.currency,
    amount: toJsonAmount(row.amount),
    links,
    transactionId: null,
    recId: row.rec_id,
    preAuth: row.pre_auth,
    expirationMinutes: row.expiration_minutes,
    ...OK,
  };
}

export interface RecurringCardView {
  recId: string;
  cardMask: string | null;
  expiryDate: string | null;
}

export function paymentView(row: PaymentRow, links: Link[], recurringCard: RecurringCardView | null = null) {
  return {
    payId: row.pay_id,
    status: row.status,
    currency: row.currency,
    amount: toJsonAmount(row.amount),
    confirmedAmount: toJsonAmountOrNull(row.confirmed_amount),
    returnedAmount: toJsonAmount(row.returned_amount),
    links,
    transactionId: row.transaction_id,
    paymentMethod: row.payment_method,
    rrn: row.rrn,
    resultCode: row.result_code,
    preAuth: row.pre_auth,
    preAuthExpiresAt: row.status === STATUS.waitingConfirm && row.pre_auth_expires_at ? row.pre_auth_expires_at.toISOString() : null,
    initiator: row.initiator,
    recurringCard,
    paymentCardNumber: row.card_mask,
    merchantPaymentId: row.merchant_payment_id,
    extra: row.extra,
    extra2: row.extra2,
    split: row.split_iban
      ? { iban: row.split_iban, amount: toJsonAmount(row.split_amount ?? 0), returnedAmount: toJsonAmount(row.split_returned_amount ?? 0) }
      : null,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...OK,
  };
}
