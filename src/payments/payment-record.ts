// Everything stored about one payment, for the merchant's back office (the dashboard's payment
// page): its row, status changes, operations, callbacks with their attempts, its saved card, and
// the operations it allows now.
import type { AttemptRow, DeliveryRow } from '../callbacks/store.ts';
import { selectDeliveries } from '../callbacks/store.ts';
import type { Queryable } from '../store/db.ts';
import type { PaymentDeps } from './deps.ts';
import { windowOf } from './cancel-and-complete.ts';
import type { PaymentRow } from './row.ts';
import type { OperationWindow } from './rules/window.ts';
import { selectSavedCard, type SavedCardRow } from './saved-card-store.ts';
import { selectEvents, selectOperations, selectPayment, type OperationRecord, type PaymentEvent } from './store.ts';

export interface PaymentRecord {
  row: PaymentRow;
  events: PaymentEvent[];
  operations: OperationRecord[];
  deliveries: DeliveryRow[];
  attempts: AttemptRow[];
  card: SavedCardRow | null;
  /** Which operations the payment allows at `now`. */
  window: OperationWindow;
}

/** The merchant's payment's record; null when it has no such payment. */
export async function paymentRecord(
  s: Pick<PaymentDeps, 'config'> & { db: Queryable },
  clientId: string,
  payId: string,
  now: () => Date,
): Promise<PaymentRecord | null> {
  const row = await selectPayment(s.db, clientId, payId);
  if (!row) return null;
  const recId = row.rec_id ?? row.charged_rec_id;
  const [events, operations, callbacks, card] = await Promise.all([
    selectEvents(s.db, payId),
    selectOperations(s.db, payId),
    selectDeliveries(s.db, payId),
    recId ? selectSavedCard(s.db, recId) : null,
  ]);
  return { row, events, operations, ...callbacks, card, window: await windowOf(s, s.db, row, now()) };
}
