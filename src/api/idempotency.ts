// Idempotency-Key over HTTP (SPEC 11): claims the key for the request, or answers from what an
// earlier request with the same key did — its stored result (replayed, `Idempotent-Replayed: true`),
// 422 when the key was used for another request, 409 while that request still runs — or takes the
// key over from a request that died and resumes the use case where it stopped. The use case itself
// runs in the unit of work handed to it (src/idempotency/unit-of-work.ts).
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import { randomHex } from '../payments/ids.ts';
import { claimKey, releaseKey, selectKey, takeOverKey, type KeyId } from '../idempotency/store.ts';
import { KEY_LOCK_MS, keyed, unkeyed, type UnitOfWork } from '../idempotency/unit-of-work.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Db } from '../store/db.ts';
import { operationOf } from './problem.ts';

export const IDEMPOTENCY = {
  keyMaxLength: 255,
  /** A key is remembered this long (business time: the sandbox clock moves it). */
  retentionMs: 24 * 3600_000,
} as const;

/** What a route answers for its use case's result. */
export interface Answer {
  status: number;
  body: unknown;
}

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  /** Counts requests answered 409 or 422 because of their key. */
  metrics?: Pick<Metrics, 'idempotencyConflicts'>;
}

/** Stable JSON (sorted keys), so the same body written in another order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${operationOf(request)}\n${canonical(request.params ?? {})}\n${canonical(request.body ?? {})}`)
    .digest('hex');
}

const keyProblem = () => {
  const reason = `must be 1 to ${IDEMPOTENCY.keyMaxLength} printable ASCII characters`;
  return gatewayError(ERRORS.invalidRequest, { detail: `Idempotency-Key ${reason}`, fields: [{ field: 'Idempotency-Key', reason, rule: ERRORS.invalidRequest }] });
};

/**
 * Runs the use case at most once per (merchant, Idempotency-Key) and answers the request. Without
 * the header the use case simply runs in a unit of work without a key.
 */
export async function idempotent<R>(
  s: IdempotencyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  run: (uow: UnitOfWork<R>) => Promise<R>,
  render: (result: R) => Answer,
): Promise<FastifyReply> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return send(reply, render(await run(unkeyed<R>(s.db))));
  const key = Array.isArray(header) ? header[0] : header;
  if (!key || key.length > IDEMPOTENCY.keyMaxLength || /[^\x20-\x7e]/.test(key)) throw keyProblem();

  const id: KeyId = { clientId: request.merchant.clientId, key };
  const hash = requestHash(request);
  const owner = randomHex(16);
  const now = s.clock.now();
  const claimed = await claimKey(s.db, {
    ...id,
    operation: operationOf(request),
    requestHash: hash,
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
  if (claimed) return runOwned(s, reply, id, owner, run, render, null);

  const row = await selectKey(s.db, id);
  if (row && row.request_hash !== hash) {
    s.metrics?.idempotencyConflicts.inc({ kind: 'mismatch' });
    throw gatewayError(ERRORS.idempotencyMismatch, { detail: 'This Idempotency-Key was already used for a different request' });
  }
  if (row?.recovery_point === 'finished') {
    if (row.result !== null) return send(reply, render(row.result as R), true);
    // A key finished before recovery points existed kept its rendered answer.
    return reply.code(row.response_status ?? 200).header('Idempotent-Replayed', 'true').type('application/json; charset=utf-8').send(row.response_body);
  }
  // A request still holds the key; if it is dead (its lock ran out), take the key over and resume.
  const taken = row ? await takeOverKey(s.db, id, owner, new Date(), new Date(Date.now() + KEY_LOCK_MS)) : null;
  if (!taken) {
    s.metrics?.idempotencyConflicts.inc({ kind: 'in_progress' });
    throw gatewayError(ERRORS.idempotencyInProgress, { retryAfterSeconds: 1 });
  }
  const resume = taken.recovery_point === 'claimed' || taken.pay_id === null ? null : { point: taken.recovery_point as 'created' | 'acquirer_called', payId: taken.pay_id };
  return runOwned(s, reply, id, owner, run, render, resume);
}

async function runOwned<R>(
  s: IdempotencyDeps,
  reply: FastifyReply,
  id: KeyId,
  owner: string,
  run: (uow: UnitOfWork<R>) => Promise<R>,
  render: (result: R) => Answer,
  resume: { point: 'created' | 'acquirer_called'; payId: string } | null,
): Promise<FastifyReply> {
  try {
    return send(reply, render(await run(keyed<R>(s.db, id, owner, resume))), resume !== null);
  } catch (err) {
    // Free the key so the client can retry, like a request never made — unless a phase committed
    // with it (the database decides: only a key still at `claimed` is released).
    await releaseKey(s.db, id, owner, true).catch((e) => {
      // The database is away (why this request failed, most likely): release the key when it is
      // back rather than answer the client's retries 409 until the lock runs out.
      releaseLater(s.db, id, owner);
      reply.request.log.warn({ err: e }, 'could not release idempotency key; will retry');
    });
    throw err;
  }
}

function send(reply: FastifyReply, answer: Answer, replayed = false): FastifyReply {
  if (replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(answer.status).send(answer.body);
}

const pendingReleases = new WeakMap<Db, Map<string, { id: KeyId; owner: string }>>();
function releaseLater(db: Db, id: KeyId, owner: string): void {
  let pending = pendingReleases.get(db);
  if (!pending) pendingReleases.set(db, (pending = new Map()));
  pending.set(owner, { id, owner });
}

/** Releases the claims of failed requests that could not be released at the time (background). */
export async function releasePendingClaims(db: Db): Promise<number> {
  const pending = pendingReleases.get(db);
  if (!pending?.size) return 0;
  let released = 0;
  for (const [owner, { id }] of [...pending]) {
    await releaseKey(db, id, owner, true); // throws while the database is still away: retried next time
    pending.delete(owner);
    released++;
  }
  return released;
}
