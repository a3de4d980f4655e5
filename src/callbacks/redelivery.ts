// Redelivery of a payment's latest callback (SPEC 10): due again now, with a fresh 3-day retry
// window, to the URL resolved again under the merchant's current registered addresses (the
// merchant may have fixed its URL — or removed an address, which must then receive nothing).
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { UnitOfWork } from '../idempotency/unit-of-work.ts';
import type { Merchant } from '../merchants/merchant.ts';
import { merchantPaymentRow } from '../payments/get-payment.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../store/db.ts';
import { callbackTarget } from './addresses.ts';
import { callbackId } from './ids.ts';
import { lockLatestDelivery, rescheduleDelivery } from './store.ts';

export interface Redelivery {
  callbackId: string;
  status: string;
}

export async function redeliverLatest(
  s: { db: Db; clock: Clock },
  merchant: Merchant,
  payId: string,
  uow: UnitOfWork<Redelivery>,
): Promise<Redelivery> {
  const payment = await merchantPaymentRow(s.db, merchant.clientId, payId);
  return uow.finish(async (q) => {
    const latest = await lockLatestDelivery(q, payId);
    if (!latest) throw gatewayError(ERRORS.nothingToRedeliver);
    const status = await rescheduleDelivery(
      q,
      latest.event_id,
      callbackTarget(payment, merchant),
      s.clock.forMerchant(merchant.clientId).now(),
    );
    return { callbackId: callbackId(latest.event_id), status };
  });
}
