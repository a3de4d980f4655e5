// Settles payments left in a processing status: the acquirer did not answer, the cardholder
// abandoned a 3-D Secure challenge, or the gateway stopped mid-call. Runs in every process; each
// settlement locks the row and ignores an attempt or operation already settled, so two reconcilers
// never apply one answer twice. A payment that fails to reconcile is logged and left for the next round.
import { reconcileAttempt } from './attempt.ts';
import type { PaymentDeps } from './deps.ts';
import { reconcileOperation } from './operations.ts';
import { STATUS } from './state-machine.ts';
import { selectStuckOperations, selectStuckProcessing } from './store.ts';

const BATCH = 100;

export async function reconcile(s: Pick<PaymentDeps, 'db' | 'clock' | 'acquirer' | 'config' | 'log'>): Promise<number> {
  const before = new Date(s.clock.nowMs() - s.config.reconcileAfterSeconds * 1000);
  let settled = 0;
  const each = async (payId: string, step: () => Promise<boolean>) => {
    try {
      if (await step()) settled++;
    } catch (err) {
      s.log.error({ err, payId }, 'reconciling a payment failed');
    }
  };
  for (const p of await selectStuckProcessing(s.db, before, BATCH)) {
    await each(p.pay_id, async () => (await reconcileAttempt(s, p.pay_id, p.attempts)).status !== STATUS.processing);
  }
  for (const payId of await selectStuckOperations(s.db, before, BATCH)) {
    await each(payId, async () => {
      await reconcileOperation(s, payId);
      return true;
    });
  }
  if (settled) s.log.info({ settled }, 'reconciled payments stuck in a processing status');
  return settled;
}
