// Records callback attempts in batches: each delivery waits for its own result, but the attempts
// that finish while a write is in flight go to the database together in the next one (a statement
// instead of one per callback under load; alone, an attempt is written at once).
import type { Clock } from '../clock.ts';
import type { Queryable } from '../store/db.ts';
import { recordAttempts, type AttemptRecord } from './store.ts';

const MAX_BATCH = 100;

interface Waiting {
  record: AttemptRecord;
  resolve(status: string): void;
  reject(err: unknown): void;
}

export class AttemptRecorder {
  private queue: Waiting[] = [];
  private writing = false;

  constructor(
    private readonly db: Queryable,
    private readonly clock: Clock,
  ) {}

  /** Logs the attempt and moves its delivery on; resolves with the delivery's new status. */
  record(record: AttemptRecord): Promise<string> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.write());
      }
    });
  }

  private async write(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.writeBatch(batch);
      } catch (err) {
        if (batch.length === 1) {
          batch[0]!.reject(err);
          continue;
        }
        // One statement for many merchants' attempts: one attempt the database refuses must not
        // take the others with it (issue 26). Each is written alone; only the refused one fails.
        for (const w of batch) await this.writeBatch([w]).catch((e) => w.reject(e));
      }
    }
    this.writing = false;
  }

  private async writeBatch(batch: Waiting[]): Promise<void> {
    const statuses = await recordAttempts(
      this.db,
      batch.map((w) => w.record),
      this.clock.base.now(),
    ); // each merchant's offset is added in SQL
    batch.forEach((w, i) => {
      w.resolve(statuses[i]!);
    });
  }
}
