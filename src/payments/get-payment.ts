// Get payment (SPEC 5). A Created payment whose time is up is expired on the spot, so what the
// merchant reads is always true even between two sweeps.
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { PaymentDeps } from './deps.ts';
import { paymentDetails, type PaymentDetails } from './details.ts';
import { expireOne } from './expiry.ts';
import { isWellFormedId } from './ids.ts';
import type { Queryable } from '../store/db.ts';
import type { PaymentRow } from './row.ts';
import { STATUS } from './state-machine.ts';
import { selectPayment, selectPaymentById } from './store.ts';

/**
 * Any merchant's payment by id, or null for an unknown id or one that cannot be one: for the
 * checkout and the sandbox, which decide themselves whose it is and who may act on it.
 */
export async function paymentById(q: Queryable, payId: string): Promise<PaymentRow | null> {
  return isWellFormedId(payId) ? selectPaymentById(q, payId) : null;
}

/** The merchant's payment as stored, or payment-not-found (also for an id that cannot be one). */
export async function merchantPaymentRow(q: Queryable, clientId: string, payId: string): Promise<PaymentRow> {
  const row = isWellFormedId(payId) ? await selectPayment(q, clientId, payId) : null;
  if (!row) throw gatewayError(ERRORS.paymentNotFound);
  return row;
}

export async function getPayment(
  s: Pick<PaymentDeps, 'db' | 'reads' | 'clock' | 'log' | 'metrics'>,
  clientId: string,
  payId: string,
): Promise<PaymentDetails> {
  let row = await merchantPaymentRow(s.reads ?? s.db, clientId, payId);
  if (row.status === STATUS.created && row.expires_at.getTime() <= s.clock.nowMs()) {
    await expireOne(s.db, payId, s.clock.now(), s);
    row = (await selectPayment(s.db, clientId, payId))!;
  }
  return paymentDetails(s.db, row);
}
