// A request run at most once per (merchant, key), whatever carries the key: the merchant API's
// Idempotency-Key header (src/api/idempotency.ts) or a dashboard form's nonce (a double submit
// runs once). Claims the key for the request, or answers from what an earlier request with the
// same key did — its stored result (replayed), 422 when the key was used for another request, 409
// while that request still runs — or takes the key over from a request that died and resumes the
// use case where it stopped. The use case runs in the unit of work handed to it (unit-of-work.ts).
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { Metrics } from '../ops/metrics.ts';
import { randomHex } from '../payments/ids.ts';
import type { Db } from '../store/db.ts';
import { claimKey, releaseKey, selectKey, takeOverKey, unlockKey, type KeyId } from './store.ts';
import { KEY_LOCK_MS, keyed, type UnitOfWork } from './unit-of-work.ts';

export const IDEMPOTENCY = {
  keyMaxLength: 255,
  /** A key is remembered this long (business time: the sandbox clock moves it). */
  retentionMs: 24 * 3600_000,
} as const;

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  /** Counts requests answered 409 or 422 because of their key. */
  metrics?: Pick<Metrics, 'idempotencyConflicts'>;
  /** The request's log, for a key that could not be released. */
  log?: { warn(fields: object, message: string): void };
}

export interface KeyedRequest extends KeyId {
  /** The use case's operation (the merchant API's name: cancel-payment, …), stored with the key. */
  operation: string;
  /** What the request asks, so the same key with another request is refused (422). */
  requestHash: string;
}

/** Stable JSON (sorted keys), so the same body written in another order is the same request. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The hash of what a request asks: its operation, path parameters and body. */
export function requestHash(operation: string, params: unknown, body: unknown): string {
  return createHash('sha256')
    .update(`${operation}\n${canonical(params ?? {})}\n${canonical(body ?? {})}`)
    .digest('hex');
}

/** The request's result, or — for a key finished before recovery points existed — its stored answer. */
export type Once<R> = { result: R; replayed: boolean } | { stored: { status: number; body: string } };

export async function runOnce<R>(
  s: IdempotencyDeps,
  req: KeyedRequest,
  run: (uow: UnitOfWork<R>) => Promise<R>,
): Promise<Once<R>> {
  const id: KeyId = { clientId: req.clientId, key: req.key };
  const owner = randomHex(16);
  const now = s.clock.now();
  const claimed = await claimKey(s.db, {
    ...id,
    operation: req.operation,
    requestHash: req.requestHash,
    owner,
    now,
    lockedUntil: new Date(Date.now() + KEY_LOCK_MS),
    expiredBefore: new Date(now.getTime() - IDEMPOTENCY.retentionMs),
  }).catch((err) => {
    // The claim may or may not have committed (a connection can break after the server ran it):
    // release it once the database answers again — a no-op if it never was.
    releaseLater(s.db, id, owner);
    throw err;
  });
  if (claimed) return runOwned(s, id, owner, run, null);

  const row = await selectKey(s.db, id);
  if (row && row.request_hash !== req.requestHash) {
    s.metrics?.idempotencyConflicts.inc({ kind: 'mismatch' });
    throw gatewayError(ERRORS.idempotencyMismatch, {
      detail: 'This Idempotency-Key was already used for a different request',
    });
  }
  if (row?.recovery_point === 'finished') {
    if (row.result !== null) return { result: row.result as R, replayed: true };
    // A key finished before recovery points existed kept its rendered answer.
    return { stored: { status: row.response_status ?? 200, body: row.response_body ?? '' } };
  }
  // A request still holds the key; if it is dead (its lock ran out), take the key over and resume.
  const taken = row ? await takeOverKey(s.db, id, owner, new Date(), new Date(Date.now() + KEY_LOCK_MS)) : null;
  if (!taken) {
    s.metrics?.idempotencyConflicts.inc({ kind: 'in_progress' });
    throw gatewayError(ERRORS.idempotencyInProgress, { retryAfterSeconds: 1 });
  }
  const resume =
    taken.recovery_point === 'claimed' || taken.pay_id === null
      ? null
      : { point: taken.recovery_point as 'created' | 'acquirer_called', payId: taken.pay_id };
  return runOwned(s, id, owner, run, resume);
}

async function runOwned<R>(
  s: IdempotencyDeps,
  id: KeyId,
  owner: string,
  run: (uow: UnitOfWork<R>) => Promise<R>,
  resume: { point: 'created' | 'acquirer_called'; payId: string } | null,
): Promise<Once<R>> {
  try {
    return { result: await run(keyed<R>(s.db, id, owner, resume)), replayed: resume !== null };
  } catch (err) {
    // Free the key so the client can retry, like a request never made — unless a phase committed
    // with it (the database decides: only a key still at `claimed` is released); a key past its
    // first phase is handed back unlocked, for the retry to resume at once.
    await handBack(s.db, id, owner).catch((e) => {
      // The database is away (why this request failed, most likely): release the key when it is
      // back rather than answer the client's retries 409 until the lock runs out.
      releaseLater(s.db, id, owner);
      s.log?.warn({ err: e }, 'could not release idempotency key; will retry');
    });
    throw err;
  }
}

const pendingReleases = new WeakMap<Db, Map<string, { id: KeyId; owner: string }>>();
function releaseLater(db: Db, id: KeyId, owner: string): void {
  let pending = pendingReleases.get(db);
  if (!pending) pendingReleases.set(db, (pending = new Map()));
  pending.set(owner, { id, owner });
}

/** A failed request's key: released when nothing committed with it, else unlocked at its recovery point. */
async function handBack(db: Db, id: KeyId, owner: string): Promise<void> {
  await releaseKey(db, id, owner, true);
  await unlockKey(db, id, owner, new Date());
}

/** Hands back the keys of failed requests that could not be handed back at the time (background). */
export async function releasePendingClaims(db: Db): Promise<number> {
  const pending = pendingReleases.get(db);
  if (!pending?.size) return 0;
  let released = 0;
  for (const [owner, { id }] of [...pending]) {
    await handBack(db, id, owner); // throws while the database is still away: retried next time
    pending.delete(owner);
    released++;
  }
  return released;
}
