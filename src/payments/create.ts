// Create payment (SPEC 4): validate against the rules and the merchant's settings, then one insert.
import { fieldProblem } from '../api/problem.ts';
import type { IdempotencyScope, OperationResult } from '../api/idempotency.ts';
import type { Merchant } from '../merchants/merchant.ts';
import type { Services } from '../services.ts';
import { newPayId, newRecId } from './ids.ts';
import { insertPayment } from './store.ts';
import { validateCreatePayment, type CreatePaymentInput } from './validation.ts';
import { createdView, paymentLinks } from './view.ts';

export async function createPayment(
  s: Pick<Services, 'config' | 'db' | 'clock' | 'metrics'>,
  merchant: Merchant,
  input: CreatePaymentInput,
  productPath: string,
  idem: IdempotencyScope | null,
): Promise<OperationResult> {
  const now = s.clock.now();
  const checked = validateCreatePayment(input, {
    merchant,
    maxAmountMinor: s.config.maxAmountMinor,
    bankCode: s.config.bankCode,
    now,
    timeZone: s.config.timeZone,
  });
  if (!checked.ok) throw fieldProblem('create-payment', checked.errors);
  const payment = checked.payment;
  const payId = newPayId();
  const recId = payment.saveCard ? newRecId() : null;
  const row = {
    payId,
    clientId: merchant.clientId,
    recId,
    payment,
    now,
    expiresAt: new Date(now.getTime() + payment.expirationMinutes * 60_000),
  };
  const body = createdView(
    { pay_id: payId, currency: payment.currency, amount: payment.amount, rec_id: recId, pre_auth: payment.preAuth, expiration_minutes: payment.expirationMinutes },
    paymentLinks(s.config.publicUrl, productPath, payId),
  );
  if (idem) {
    await s.db.tx(async (q) => {
      await insertPayment(q, row);
      await idem.save(q, 200, body);
    });
  } else {
    // A single statement is its own transaction: the hot path is one round trip.
    await insertPayment(s.db, row);
  }
  s.metrics.paymentsCreated.inc();
  return { status: 200, body };
}
