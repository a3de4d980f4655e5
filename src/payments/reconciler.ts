// Settles payments left in a processing status: the acquirer did not answer, the cardholder
// abandoned a 3-D Secure challenge, or the gateway stopped mid-call. Runs in every process; each
// settlement locks the row and ignores an attempt or operation already settled, so two reconcilers
// never apply one answer twice. A payment that fails to reconcile is logged and left for the next round.
//
// Each payment it looks at is one business event, `payment.reconciled` (payId, clientId, from, to,
// outcome), beside the `payment.status` line of the change itself: `settled` (this reconciler moved
// it), `settled_elsewhere` (a request or another process did, meanwhile), `unresolved` (the acquirer
// has no final answer yet: asked again next round) or `failed` (an error: next round too).
import { reconcileAttempt } from './attempt.ts';
import type { PaymentDeps } from './deps.ts';
import { reconcileOperation } from './cancel-and-complete.ts';
import type { Status } from './state-machine.ts';
import { selectPaymentById, selectStuckOperations, selectStuckProcessing, type StuckPayment } from './store.ts';

const BATCH = 100;

type Deps = Pick<PaymentDeps, 'db' | 'clock' | 'acquirer' | 'config' | 'log' | 'metrics'>;
export type ReconcileOutcome = 'settled' | 'settled_elsewhere' | 'unresolved' | 'failed';

export async function reconcile(s: Deps): Promise<number> {
  // On the global clock: the selection adds each merchant's own offset.
  const before = new Date(s.clock.base.nowMs() - s.config.reconcileAfterSeconds * 1000);
  let settled = 0;
  const each = async (kind: 'attempt' | 'operation', p: StuckPayment, step: (w: Deps) => Promise<unknown>) => {
    let to: Status | null = null;
    let outcome: ReconcileOutcome;
    let err: unknown;
    try {
      // The changes this reconciler makes itself, as moveStatus reports them.
      // On the payment's merchant clock: its own sandbox time decides what the settlement records.
      await step({
        ...s,
        clock: s.clock.forMerchant(p.client_id),
        onMove: (row: { status: Status }) => void (to = row.status),
      } as Deps);
      if (to) outcome = 'settled';
      else {
        to = (await selectPaymentById(s.db, p.pay_id))?.status ?? p.status;
        outcome = to === p.status ? 'unresolved' : 'settled_elsewhere';
      }
    } catch (e) {
      err = e;
      outcome = 'failed';
    }
    if (outcome === 'settled') settled++;
    s.metrics?.reconciliations.inc({ kind, outcome });
    const fields = {
      event: 'payment.reconciled',
      payId: p.pay_id,
      clientId: p.client_id,
      kind,
      from: p.status,
      to: to ?? p.status,
      outcome,
    };
    if (outcome === 'failed') s.log.error({ ...fields, err }, 'reconciling a payment failed');
    else if (outcome === 'settled') s.log.info(fields, `reconciler settled a payment: ${p.status} → ${to}`);
    // Asked again every round until the acquirer answers: not a line each time at info.
    else
      s.log.debug(
        fields,
        outcome === 'unresolved' ? 'reconciler: still no final answer' : 'reconciler: settled meanwhile by another',
      );
  };
  for (const p of await selectStuckProcessing(s.db, before, BATCH)) {
    await each('attempt', p, (w) => reconcileAttempt(w, p.pay_id, p.attempts));
  }
  for (const p of await selectStuckOperations(s.db, before, BATCH)) {
    await each('operation', p, (w) => reconcileOperation(w, p.pay_id));
  }
  if (settled) s.log.info({ settled }, 'reconciled payments stuck in a processing status');
  return settled;
}
