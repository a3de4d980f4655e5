// Group commit for independent inserts. Under load many requests want the same one-row INSERT at
// once; each as a statement of its own costs a round trip, a commit and a WAL flush, and on two
// shared cores the context switches of those round trips are most of the cost. The batcher collects
// what the requests of one turn of the event loop add and lets at most `concurrency` statements run
// at a time (turn-batches.ts); whatever arrives meanwhile waits and goes out as ONE multi-row
// statement when a slot frees. A busy gateway writes tens of rows per commit.
//
// A multi-row statement is all or nothing: when it fails for a reason that may be one row's (a
// constraint), each row is retried alone so that only the faulty row's request fails. When the
// database is not there (`wholeBatch`), every request gets that error as it would have alone.

import { TurnBatches } from './turn-batches.ts';

export interface BatcherOptions {
  /** Statements in flight at once; 0 = no batching, every item its own statement at once. */
  concurrency: number;
  /** Items per statement at most. */
  maxBatch: number;
  /** True for an error every item would have had alone (no retry one by one). */
  wholeBatch: (err: unknown) => boolean;
}

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class Batcher<T> {
  private readonly batches: TurnBatches<Waiting<T>>;
  /** Statements written, and the items they carried (metrics and tests). */
  statements = 0;
  items = 0;

  constructor(
    private readonly write: (items: readonly T[]) => Promise<void>,
    private readonly opts: BatcherOptions,
  ) {
    this.batches = new TurnBatches(opts.concurrency, opts.maxBatch, (batch) => this.run(batch));
  }

  /** Resolves once the item is committed (with the others of its statement). */
  add(item: T): Promise<void> {
    if (this.opts.concurrency <= 0) return this.writeCounted([item]);
    return new Promise<void>((resolve, reject) => this.batches.push({ item, resolve, reject }));
  }

  private async run(batch: Waiting<T>[]): Promise<void> {
    try {
      await this.writeCounted(batch.map((w) => w.item));
      for (const w of batch) w.resolve();
    } catch (err) {
      if (batch.length === 1 || this.opts.wholeBatch(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      // Nothing of the statement was written: each row again alone, so only its own fault fails it.
      await Promise.all(
        batch.map((w) =>
          this.writeCounted([w.item]).then(
            () => w.resolve(),
            (e: unknown) => w.reject(e),
          ),
        ),
      );
    }
  }

  private writeCounted(items: readonly T[]): Promise<void> {
    this.statements++;
    this.items += items.length;
    return this.write(items);
  }
}
