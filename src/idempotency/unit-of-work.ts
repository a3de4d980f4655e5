// The unit of work a use case runs in (brandur's rocket-rides-atomic): its changes happen in atomic
// phases, and when the request carries an Idempotency-Key each phase also records the key's
// recovery point in the same transaction. A retry after a crash finds the key where the dead
// request left it and resumes from there (`resume`), never doing a phase twice; a finished request's
// result is stored with its last change and replayed. Without a key the same phases simply run.
import type { Db, Queryable } from '../store/db.ts';
import { advanceKey, finishKey, releaseKey, type KeyId, type LinkedWork, type RecoveryPoint } from './store.ts';

/** How long an owner holds its key between two phases before a retry may take it over (real time). */
export const KEY_LOCK_MS = 60_000;

export interface Resumption {
  point: Exclude<RecoveryPoint, 'claimed' | 'finished'>;
  payId: string;
}

export interface UnitOfWork<R> {
  /** Where an earlier request with this key stopped, when this one took the key over. */
  readonly resume: Resumption | null;
  /** Runs fn atomically, moving the key to `point` and linking the payment it made or works on
   * (and, for `work`, what it does there: the reconciler finishes such keys). `alone`: the same
   * change as fn when there is no key to record with it, made without a transaction of its own
   * (as finish's). */
  reach<T>(
    point: Resumption['point'],
    payId: string,
    fn: (q: Queryable) => Promise<T>,
    work?: LinkedWork,
    opts?: { alone?: () => Promise<T> },
  ): Promise<T>;
  /**
   * Runs fn atomically and stores its result as the request's answer. `alone`: the same change as
   * fn when there is no key to record with it — one statement that needs no transaction of its own
   * and may share a statement with other requests' (create's group commit); with a key fn runs.
   */
  finish(fn: (q: Queryable) => Promise<R>, opts?: { alone?: () => Promise<R> }): Promise<R>;
  /** Runs fn atomically and frees the key: the request ends without a lasting change (the acquirer
   * refused), so a retry is a fresh request. */
  abandon<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
}

class TakenOver extends Error {
  constructor() {
    super('the idempotency key was taken over by a retry; this request rolled its change back');
  }
}

/** A unit of work without a key: atomic phases, nothing recorded. */
export function unkeyed<R>(db: Db): UnitOfWork<R> {
  return {
    resume: null,
    reach: (_point, _payId, fn, _work, opts) => (opts?.alone ? opts.alone() : db.tx(fn)),
    finish: (fn, opts) => (opts?.alone ? opts.alone() : db.tx(fn)),
    abandon: (fn) => db.tx(fn),
  };
}

/** A unit of work owning an idempotency key (claimed or taken over by the HTTP layer). */
export function keyed<R>(db: Db, id: KeyId, owner: string, resume: Resumption | null): UnitOfWork<R> {
  const lockUntil = () => new Date(Date.now() + KEY_LOCK_MS);
  const mine = (ok: boolean) => {
    if (!ok) throw new TakenOver();
  };
  return {
    resume,
    reach: (point, payId, fn, work) =>
      db.tx(async (q) => {
        const out = await fn(q);
        mine(await advanceKey(q, id, owner, point, payId, lockUntil(), work ?? null));
        return out;
      }),
    finish: (fn) =>
      db.tx(async (q) => {
        const result = await fn(q);
        mine(await finishKey(q, id, owner, result));
        return result;
      }),
    abandon: (fn) =>
      db.tx(async (q) => {
        const out = await fn(q);
        await releaseKey(q, id, owner, false);
        return out;
      }),
  };
}
