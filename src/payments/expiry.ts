// Time running out (SPEC 6): a Created payment past expirationMinutes becomes Expired, a
// pre-authorisation past its block window goes back to the customer (Returned). The sweeper runs in
// every process; SKIP LOCKED lets several share the work without moving a payment twice, and
// get-payment expires a due payment on the spot, so what a merchant reads is always true. A payment
// is due on its own merchant's clock (the sweep adds each merchant's sandbox offset in SQL).
import type { Clock } from '../clock.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Db, Queryable } from '../store/db.ts';
import { advisoryXactLock } from '../store/locks.ts';
import type { PaymentRow } from './row.ts';
import { STATUS, type Status } from './state-machine.ts';
import {
  columnValue,
  moveOne,
  moveStatus,
  type PaymentPatch,
  type PaymentSelector,
  type StatusWitness,
} from './store.ts';

const BATCH = 500;
/**
 * The advisory lock one sweep batch holds: sweeps of several processes take turns. Each expired
 * bank-profile payment gives its volume back by a trigger (migration 013) that locks the merchant's
 * day row in the order the batch's UPDATE happens to visit its payments; two batches at once could
 * lock two such rows in opposite orders and deadlock. One at a time, they cannot.
 */
export const SWEEP_LOCK = 72_616_936;

/** Expires one payment if it is still Created and due; true when it did. */
export async function expireOne(q: Queryable, payId: string, now: Date, w: StatusWitness): Promise<boolean> {
  return (await moveOne(q, { payId, from: STATUS.created, expiredAt: now }, STATUS.expired, {}, now, w)) !== null;
}

/** Everything authorised goes back: the block is released in full. */
const RELEASE_ALL = {
  returned_amount: columnValue('amount'),
  split_returned_amount: columnValue('split_amount'),
} as const;

export class ExpirySweeper {
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
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

  /** One batch of moves under the sweep lock, in a transaction of its own. */
  private batch(
    sel: Extract<PaymentSelector, { due: string }>,
    to: Status,
    patch: PaymentPatch,
  ): Promise<PaymentRow[]> {
    return this.db.tx(async (q) => {
      await advisoryXactLock(q, SWEEP_LOCK, 'sweep_lock');
      return moveStatus(q, sel, to, patch, this.clock.base.now(), this.w);
    });
  }

  /** The merchant of every payment it expired. */
  private async run(): Promise<string[]> {
    const expiredOf: string[] = [];
    for (;;) {
      const expired = await this.batch({ due: 'expires_at', from: STATUS.created, limit: BATCH }, STATUS.expired, {});
      for (const p of expired) expiredOf.push(p.client_id);
      if (expired.length < BATCH) break;
    }
    for (;;) {
      const released = await this.batch(
        { due: 'pre_auth_expires_at', from: STATUS.waitingConfirm, limit: BATCH },
        STATUS.returned,
        RELEASE_ALL,
      );
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
