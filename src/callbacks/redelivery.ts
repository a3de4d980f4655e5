// Redelivery of a payment's latest callback (SPEC 10): due again now, with a fresh 3-day retry
// window, to the URL resolved again under the merchant's current registered addresses (the
// merchant may have fixed its URL — or removed an address, which must then receive nothing).
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { UnitOfWork } from '../idempotency/unit-of-work.ts';
import type { Merchant } from '../merchants/merchant.ts';
import { isWellFormedId } from '../payments/ids.ts';
import type { PaymentRow } from '../payments/row.ts';
import { selectPayment } from '../payments/store.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../store/db.ts';
import { isRegisteredCallbackUrl } from './addresses.ts';
import { callbackId } from './ids.ts';
import { lockLatestDelivery, rescheduleDelivery } from './store.ts';

export interface Redelivery {
  callbackId: string;
  status: string;
}

/** Where a payment's callbacks go now: its own callbackUrl, else the merchant's default — each only
 * while it is under one of the merchant's registered callback addresses. */
export function callbackTarget(payment: Pick<PaymentRow, 'callback_url'>, merchant: Pick<Merchant, 'defaultCallbackUrl' | 'callbackUrlPrefixes'>): string | null {
  for (const url of [payment.callback_url, merchant.defaultCallbackUrl]) {
    if (url && isRegisteredCallbackUrl(url, merchant.callbackUrlPrefixes)) return url;
  }
  return null;
}

export async function redeliverLatest(s: { db: Db; clock: Clock }, merchant: Merchant, payId: string, uow: UnitOfWork<Redelivery>): Promise<Redelivery> {
  const payment = isWellFormedId(payId) ? await selectPayment(s.db, merchant.clientId, payId) : null;
  if (!payment) throw gatewayError(ERRORS.paymentNotFound);
  return uow.finish(async (q) => {
    const latest = await lockLatestDelivery(q, payId);
    if (!latest) throw gatewayError(ERRORS.nothingToRedeliver);
    const status = await rescheduleDelivery(q, latest.event_id, callbackTarget(payment, merchant), s.clock.now());
    return { callbackId: callbackId(latest.event_id), status };
  });
}
