// A merchant's view of one of its payments' callbacks (SPEC 10): every delivery and every attempt.
import { merchantPaymentRow } from '../payments/get-payment.ts';
import type { Queryable } from '../store/db.ts';
import { selectDeliveries, type AttemptRow, type DeliveryRow } from './store.ts';

/** The payment's deliveries in sequence and their attempts; payment-not-found unless it is the merchant's. */
export async function paymentCallbacks(
  q: Queryable,
  clientId: string,
  payId: string,
): Promise<{ deliveries: DeliveryRow[]; attempts: AttemptRow[] }> {
  await merchantPaymentRow(q, clientId, payId);
  return selectDeliveries(q, payId);
}
