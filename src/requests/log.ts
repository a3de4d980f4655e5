// The merchant request log's writer: requests are buffered in memory and written in one INSERT per
// batch off the request path, so create-payment pays only an array push. A slow or down database
// drops entries past the buffer bound rather than slowing or failing merchant calls — this log is
// a debugging aid, not a record of truth (payments and their events are).
import type { Db } from '../store/db.ts';
import { insertRequests, pruneRequests, type LoggedRequest } from './store.ts';

export const KEEP_PER_MERCHANT = 1000;

export class RequestLog {
  private buffer: LoggedRequest[] = [];
  private readonly touched = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private lastPrune = 0;
  dropped = 0;

  constructor(
    private readonly db: Db,
    private readonly onError: (err: unknown) => void,
    private readonly opts = {
      flushMs: 200,
      maxBatch: 500,
      maxBuffer: 10_000,
      pruneEveryMs: 10_000,
      keep: KEEP_PER_MERCHANT,
    },
  ) {}

  push(entry: LoggedRequest): void {
    if (this.buffer.length >= this.opts.maxBuffer) {
      this.dropped++;
      return;
    }
    this.buffer.push(entry);
    if (this.buffer.length >= this.opts.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.opts.flushMs);
  }

  /** Writes what is buffered; resolves when it is in the database (tests and shutdown wait on it). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    while (this.buffer.length) {
      const batch = this.buffer.splice(0, this.opts.maxBatch);
      for (const e of batch) this.touched.add(e.clientId);
      try {
        await insertRequests(this.db, batch);
      } catch (err) {
        this.dropped += batch.length;
        this.onError(err);
        return;
      }
    }
    if (Date.now() - this.lastPrune >= this.opts.pruneEveryMs && this.touched.size) {
      this.lastPrune = Date.now();
      const ids = [...this.touched];
      this.touched.clear();
      await pruneRequests(this.db, ids, this.opts.keep).catch(this.onError);
    }
  }

  /** Prunes every merchant written since the last prune now (tests; the timer does it otherwise). */
  async pruneNow(): Promise<void> {
    await this.flush();
    const ids = [...this.touched];
    this.touched.clear();
    await pruneRequests(this.db, ids, this.opts.keep);
  }
}
