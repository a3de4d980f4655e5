// Create payment (SPEC 4): the rules, then one insert — without an Idempotency-Key a single
// statement, its own transaction, shared under load with other requests' inserts (group commit).
import type { UnitOfWork } from '../idempotency/unit-of-work.ts';
import type { Merchant } from '../merchants/merchant.ts';
import { countsDailyVolume, insertNewPayment } from './daily-volume.ts';
import { ruleContext, type PaymentDeps } from './deps.ts';
import { newPayId, newRecId } from './ids.ts';
import { checkCreatePayment, type CreatePaymentInput } from './rules/create.ts';
import { insertPayment } from './store.ts';

/** What create answers: the new payment (amounts in minor units). */
export interface CreatedPayment {
  payId: string;
  currency: string;
  amount: number;
  recId: string | null;
  preAuth: boolean;
  expirationMinutes: number;
}

export async function createPayment(
  s: Pick<PaymentDeps, 'db' | 'clock' | 'config' | 'inserts'>,
  merchant: Merchant,
  input: CreatePaymentInput,
  uow: UnitOfWork<CreatedPayment>,
): Promise<CreatedPayment> {
  const ctx = ruleContext(s, merchant);
  const payment = checkCreatePayment(input, ctx);
  const payId = newPayId();
  const recId = payment.saveCard ? newRecId() : null;
  const row = {
    payId,
    clientId: merchant.clientId,
    recId,
    payment,
    now: ctx.now,
    expiresAt: new Date(ctx.now.getTime() + payment.expirationMinutes * 60_000),
  };
  // A bank-profile merchant's GEL payment also counts against its daily limit, in the same transaction.
  const counted = countsDailyVolume(merchant, payment.currency);
  const created: CreatedPayment = {
    payId,
    currency: payment.currency,
    amount: payment.amount,
    recId,
    preAuth: payment.preAuth,
    expirationMinutes: payment.expirationMinutes,
  };
  return uow.finish(
    async (q) => {
      await insertNewPayment(q, merchant, row, 'amount.total', s.config.timeZone);
      return created;
    },
    counted
      ? undefined
      : {
          alone: async () => {
            await (s.inserts ? s.inserts.add(row) : insertPayment(s.db, row));
            return created;
          },
        },
  );
}
