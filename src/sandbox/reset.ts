// POST /sandbox/v1/reset: everything a merchant's sandbox traffic left behind, deleted in one
// transaction (reset-store.ts has the statements and says what stays).
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import { STATUS } from '../payments/state-machine.ts';
import type { Db } from '../store/db.ts';
import { deleteSandboxData, lockMerchantPayments, type ResetCounts } from './reset-store.ts';

/** A payment in one of these statuses waits for the acquirer's answer (or a customer's 3-D Secure code). */
const AT_THE_ACQUIRER: ReadonlySet<string> = new Set([
  STATUS.processing,
  STATUS.cancelProcessing,
  STATUS.completionProcessing,
]);

/**
 * Deletes the merchant's sandbox data, or refuses (resetBusy, nothing deleted) while any of its
 * payments is at the acquirer: the request running that operation would come back to a payment that
 * no longer exists (a 500 before issue 26), and a refund the acquirer performed would vanish with
 * it. Waiting instead is no better: a 3-D Secure code or a lost answer can keep a payment Processing
 * for minutes, longer than a request should hold a transaction.
 */
export async function resetSandbox(db: Db, clientId: string): Promise<ResetCounts> {
  return db.tx(async (q) => {
    const payments = await lockMerchantPayments(q, clientId);
    const busy = payments.filter((p) => AT_THE_ACQUIRER.has(p.status));
    if (busy.length) {
      throw gatewayError(ERRORS.resetBusy, {
        detail: `${busy.length} payment(s) of this merchant wait for the acquirer (${busy
          .slice(0, 5)
          .map((p) => `${p.pay_id} ${p.status}`)
          .join(', ')}${busy.length > 5 ? ', …' : ''}); nothing was deleted`,
        retryAfterSeconds: 1,
      });
    }
    return deleteSandboxData(
      q,
      clientId,
      payments.map((p) => p.pay_id),
    );
  });
}
