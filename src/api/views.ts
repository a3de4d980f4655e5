// What the merchant API answers for the domain's results: amounts as JSON numbers with at most two
// decimals, the links, and the seed's httpStatusCode/developerMessage/userMessage on every success.
import type { CreatedPayment } from '../payments/create-payment.ts';
import type { PaymentDetails } from '../payments/details.ts';
import { toJsonAmount } from '../payments/money.ts';
import type { OperationOutcome } from '../payments/cancel-and-complete.ts';
import { STATUS } from '../payments/state-machine.ts';

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

export const OK = { httpStatusCode: 200, developerMessage: null, userMessage: null } as const;

export function createdView(p: CreatedPayment, links: Link[]) {
  return {
    payId: p.payId,
    status: STATUS.created,
    currency: p.currency,
    amount: toJsonAmount(p.amount),
    // Nothing is captured yet: 0, a number as the bank gives it.
    confirmedAmount: 0,
    links,
    transactionId: null,
    recId: p.recId,
    preAuth: p.preAuth,
    expirationMinutes: p.expirationMinutes,
    ...OK,
  };
}

export function paymentView(p: PaymentDetails, links: Link[]) {
  return {
    ...p,
    amount: toJsonAmount(p.amount),
    confirmedAmount: toJsonAmount(p.confirmedAmount),
    returnedAmount: toJsonAmount(p.returnedAmount),
    links,
    split: p.split
      ? {
          iban: p.split.iban,
          amount: toJsonAmount(p.split.amount),
          returnedAmount: toJsonAmount(p.split.returnedAmount),
        }
      : null,
    ...OK,
  };
}

/** The 200 answer of a cancel or a completion. */
export function operationView(o: OperationOutcome) {
  return o.kind === 'capture'
    ? { status: o.status, amount: toJsonAmount(o.amount), confirmedAmount: toJsonAmount(o.confirmedAmount), ...OK }
    : { status: o.status, amount: toJsonAmount(o.amount), returnedAmount: toJsonAmount(o.returnedAmount), ...OK };
}
