// Created → Expired once expirationMinutes have passed (SPEC 6). The sweeper runs in every process;
// SKIP LOCKED lets several of them share the work without expiring a payment twice.
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Db, Queryable } from '../store/db.ts';
import { expireDue, lockPayment, releaseExpiredBlocks, transition } from './store.ts';
import { STATUS } from './statuses.ts';

const BATCH = 500;

/** Expires one payment if it is still Created and due; true when it did. */
export async function expireOne(db: Db, payId: string, now: Date): Promise<boolean> {
  return db.tx(async (q: Queryable) => {
    const row = await lockPayment(q, payId);
    if (!row || row.status !== STATUS.created || row.expires_at.getTime() > now.getTime()) return false;
    return (await transition(q, payId, STATUS.created, STATUS.expired, now)) !== null;
  });
}

export class ExpirySweeper {
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly onExpired: (count: number) => void = () => {},
  ) {}

  /**
   * Expires everything due at the clock's time when this run starts. Calls queue behind each other,
   * so a sweep asked for right after the clock moved always sees the new time. Returns the count.
   */
  sweep(): Promise<number> {
    const next = this.last.then(() => this.run());
    this.last = next.catch(() => {});
    return next;
  }

  private async run(): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await expireDue(this.db, this.clock.now(), BATCH);
      total += expired.length;
      if (expired.length < BATCH) break;
    }
    // Pre-authorisations past their block window go back to the customer (SPEC 6).
    for (;;) {
      const released = await releaseExpiredBlocks(this.db, this.clock.now(), BATCH);
      if (released.length) this.log.info({ released: released.length }, 'released expired pre-authorisation blocks');
      if (released.length < BATCH) break;
    }
    if (total > 0) {
      this.log.info({ expired: total }, 'expired payments');
      this.onExpired(total);
    }
    return total;
  }
}
