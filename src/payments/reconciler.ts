// Settles payments left in Processing: the acquirer did not answer, the cardholder abandoned a
// 3-D Secure challenge, or the gateway stopped mid-call. Runs in every process; settle() locks the
// row and ignores an attempt already settled, so two reconcilers never apply one answer twice.
import type { Services } from '../services.ts';
import { reconcileOne } from './attempt.ts';
import { reconcileOperation } from './operations.ts';
import { selectStuckOperations, selectStuckProcessing } from './store.ts';

const BATCH = 100;

export async function reconcile(s: Pick<Services, 'db' | 'clock' | 'acquirer' | 'config' | 'log'>): Promise<number> {
  const before = new Date(s.clock.nowMs() - s.config.reconcileAfterSeconds * 1000);
  const stuck = await selectStuckProcessing(s.db, before, BATCH);
  let settled = 0;
  for (const p of stuck) {
    const row = await reconcileOne(s, p.pay_id, p.attempts);
    if (row.status !== 'Processing') settled++;
  }
  for (const payId of await selectStuckOperations(s.db, before, BATCH)) {
    await reconcileOperation(s, payId);
    settled++;
  }
  if (settled) s.log.info({ settled }, 'reconciled payments stuck in a processing status');
  return settled;
}
