// Create's group commit: new payments of concurrent create requests written as one multi-row
// INSERT (src/store/batcher.ts says when and why). Only the key-less create uses it — a payment
// made under an Idempotency-Key is inserted in the key's own transaction.
import { Batcher } from '../store/batcher.ts';
import { isUnavailable, type Db } from '../store/db.ts';
import type { PaymentInserts } from './deps.ts';
import { insertPayments, type InsertPayment } from './store.ts';

/** Rows per statement at most: a 64-connection load rarely queues more. */
export const MAX_ROWS_PER_INSERT = 64;

export function batchedInserts(db: Db, concurrency: number): PaymentInserts & Batcher<InsertPayment> {
  return new Batcher<InsertPayment>((rows) => insertPayments(db, rows), {
    concurrency,
    maxBatch: MAX_ROWS_PER_INSERT,
    wholeBatch: isUnavailable,
  });
}
