// Schemas of the merchant search endpoints (Karibche extensions). Query values stay strings here:
// the domain parses them so the API and the dashboard reject the same inputs the same way.
import { Type } from 'typebox';
import { PaymentResponse } from './schemas.ts';

const Q = (description: string) => Type.Optional(Type.String({ description }));

export const PaymentListQuery = Type.Object({
  status: Q('Payment status, e.g. Succeeded'),
  method: Q('Payment method number'),
  currency: Q('ISO 4217 code'),
  from: Q('Created at or after (ISO 8601)'),
  to: Q('Created before (ISO 8601)'),
  minAmount: Q('Smallest amount, decimal'),
  maxAmount: Q('Largest amount, decimal'),
  merchantPaymentId: Q('Exact merchantPaymentId'),
  payId: Q('Exact payId'),
  limit: Q('Page size, 1–100 (default 20)'),
  cursor: Q('nextCursor of the previous page'),
});

export const PaymentListResponse = Type.Object({
  items: Type.Array(PaymentResponse),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
