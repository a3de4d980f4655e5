// Time running out (SPEC 6): a Created payment past expirationMinutes becomes Expired, a
// pre-authorisation past its block window goes back to the customer (Returned). The sweeper runs in
// every process; SKIP LOCKED lets several share the work without moving a payment twice, and
// get-payment expires a due payment on the spot, so what a merchant reads is always true. A payment
// is due on its own merchant's clock (the sweep adds each merchant's sandbox offset in SQL).
import type { Clock } from '../clock.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Queryable } from '../store/db.ts';
import { STATUS } from './state-machine.ts';
import { columnValue, moveOne, moveStatus, type StatusWitness } from './store.ts';

const BATCH = 500;

/** Expires one payment if it is still Created and due; true when it did. */
export async function expireOne(q: Queryable, payId: string, now: Date, w: StatusWitness): Promise<boolean> {
  return (await moveOne(q, { payId, from: STATUS.created, expiredAt: now }, STATUS.expired, {}, now, w)) !== null;
}

/** Everything authorised goes back: the block is released in full. */
const RELEASE_ALL = { returned_amount: columnValue('amount'), split_returned_amount: columnValue('split_amount') } as const;

export class ExpirySweeper {
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Queryable,
    private readonly clock: Clock,
    private readonly w: StatusWitness & { metrics?: Pick<Metrics, 'paymentStatusChanges' | 'paymentsExpired'> },
  ) {}

  /**
   * Expires everything due at the clock's time when this run starts. Calls queue behind each other,
   * so a sweep asked for right after the clock moved always sees the new time. Returns how many
   * payments it expired: all of them, or only `clientId`'s (a merchant moving its own sandbox clock
   * learns nothing of the others' payments the same sweep expired).
   */
  async sweep(clientId?: string): Promise<number> {
    const next = this.last.then(() => this.run());
    this.last = next.catch(() => {});
    const expiredOf = await next;
    return clientId === undefined ? expiredOf.length : expiredOf.filter((c) => c === clientId).length;
  }

  /** The merchant of every payment it expired. */
  private async run(): Promise<string[]> {
    const expiredOf: string[] = [];
    for (;;) {
      const expired = await moveStatus(this.db, { due: 'expires_at', from: STATUS.created, limit: BATCH }, STATUS.expired, {}, this.clock.base.now(), this.w);
      for (const p of expired) expiredOf.push(p.client_id);
      if (expired.length < BATCH) break;
    }
    for (;;) {
      const released = await moveStatus(this.db, { due: 'pre_auth_expires_at', from: STATUS.waitingConfirm, limit: BATCH }, STATUS.returned, RELEASE_ALL, this.clock.base.now(), this.w);
      if (released.length) this.w.log.info({ released: released.length }, 'released expired pre-authorisation blocks');
      if (released.length < BATCH) break;
    }
    if (expiredOf.length > 0) {
      this.w.log.info({ expired: expiredOf.length }, 'expired payments');
      this.w.metrics?.paymentsExpired.inc(expiredOf.length);
    }
    return expiredOf;
  }
}
