// Idempotency-Key (SPEC 11). The first request with a key claims it; the operation stores its
// response in the same transaction as its own change, so a replay can never disagree with what
// happened. Same key + different request: 422; same key while the first still runs: 409.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Db, Queryable } from '../store/db.ts';
import { ERRORS } from './errors.ts';
import { operationOf, problem } from './problem.ts';

export const IDEMPOTENCY = {
  keyMaxLength: 255,
  retentionMs: 24 * 3600_000,
  /** A claim older than this whose process vanished may be taken over by a retry. */
  claimTimeoutMs: 60_000,
} as const;

/** Handed to an operation: call save() inside the transaction that makes the change. */
export interface IdempotencyScope {
  save(q: Queryable, status: number, body: unknown): Promise<void>;
  /**
   * For an operation that creates a payment before its outcome is known (a saved-card charge):
   * call inside the creating transaction. A retry that finds the first request dead then resumes
   * this payment (see `resume`) instead of creating another.
   */
  link(q: Queryable, payId: string): Promise<void>;
}

export interface OperationResult {
  status: number;
  body: unknown;
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

interface KeyRow {
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: string | null;
  pay_id: string | null;
  locked_until: Date | null;
}

/**
 * Runs `operation` at most once per (merchant, Idempotency-Key) and answers the request, replaying
 * a stored response when there is one. Without the header the operation simply runs.
 */
export async function idempotent(
  db: Db,
  clock: Clock,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: (scope: IdempotencyScope | null) => Promise<OperationResult>,
  /** Answers for a payment a dead earlier request created and linked (see IdempotencyScope.link). */
  resume?: (payId: string) => Promise<OperationResult>,
): Promise<FastifyReply> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) {
    const r = await operation(null);
    return reply.code(r.status).send(r.body);
  }
  const key = Array.isArray(header) ? header[0]! : header;
  if (key.length === 0 || key.length > IDEMPOTENCY.keyMaxLength || /[^\x20-\x7e]/.test(key)) {
    throw problem(ERRORS.invalidRequest, {
      detail: `Idempotency-Key must be 1 to ${IDEMPOTENCY.keyMaxLength} printable ASCII characters`,
      invalidParams: [{ name: 'Idempotency-Key', reason: `must be 1 to ${IDEMPOTENCY.keyMaxLength} printable ASCII characters` }],
    });
  }
  const clientId = request.merchant.clientId;
  const hash = requestHash(request);
  const now = clock.now();
  const claimed = await db
    .query(
      `INSERT INTO idempotency_keys (client_id, key, request_hash, state, created_at, locked_until)
       VALUES ($1, $2, $3, 'running', $4, $5)
       ON CONFLICT (client_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, state = 'running',
         response_status = NULL, response_body = NULL, created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until
       WHERE idempotency_keys.created_at <= $6
          OR (idempotency_keys.state = 'running' AND idempotency_keys.locked_until <= $4
              AND idempotency_keys.request_hash = EXCLUDED.request_hash AND idempotency_keys.pay_id IS NULL)
       RETURNING key`,
      [clientId, key, hash, now, new Date(now.getTime() + IDEMPOTENCY.claimTimeoutMs), new Date(now.getTime() - IDEMPOTENCY.retentionMs)],
    )
    .catch((err) => {
      // The claim may have been committed or not (the connection can break after the server ran
      // the statement). Release it when the database answers again: a no-op if it never was.
      releaseLater(db, clientId, key, now);
      throw err;
    });
  if (claimed.rowCount === 0) {
    const { rows } = await db.query<KeyRow>(
      'SELECT request_hash, state, response_status, response_body, pay_id, locked_until FROM idempotency_keys WHERE client_id = $1 AND key = $2',
      [clientId, key],
    );
    const row = rows[0];
    if (row && row.request_hash !== hash) {
      throw problem(ERRORS.idempotencyMismatch, { detail: 'This Idempotency-Key was already used for a different request' });
    }
    const dead = row && row.state === 'running' && row.locked_until !== null && row.locked_until.getTime() <= now.getTime();
    if (row && dead && row.pay_id && resume) {
      // The first request created its payment and died before answering: answer that payment.
      const r = await resume(row.pay_id);
      await db.query(
        `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_body = $4, locked_until = NULL WHERE client_id = $1 AND key = $2`,
        [clientId, key, r.status, JSON.stringify(r.body)],
      );
      return reply.code(r.status).header('Idempotent-Replayed', 'true').send(r.body);
    }
    if (!row || row.state === 'running') {
      throw problem(ERRORS.idempotencyInProgress, { headers: { 'Retry-After': '1' } });
    }
    return reply
      .code(row.response_status!)
      .header('Idempotent-Replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(row.response_body);
  }

  let saved = false;
  const scope: IdempotencyScope = {
    async save(q, status, body) {
      await q.query(
        `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_body = $4, locked_until = NULL
         WHERE client_id = $1 AND key = $2`,
        [clientId, key, status, JSON.stringify(body)],
      );
      saved = true;
    },
    async link(q, payId) {
      await q.query('UPDATE idempotency_keys SET pay_id = $3 WHERE client_id = $1 AND key = $2', [clientId, key, payId]);
    },
  };
  try {
    const r = await operation(scope);
    if (!saved) await scope.save(db, r.status, r.body);
    return reply.code(r.status).send(r.body);
  } catch (err) {
    // Free the key so the client can retry, like a request that was never made, unless a change
    // committed with it: releaseClaim spares a saved response (state 'done') and a linked payment.
    // The database decides, not what this process saw: a save or link whose transaction then
    // rolled back (or whose COMMIT went unanswered) leaves exactly what committed.
    await releaseClaim(db, clientId, key, now).catch((e) => {
      // The database is away (the reason this request failed, most likely): release the key when
      // it is back rather than answer the client's retries 409 until the claim times out.
      releaseLater(db, clientId, key, now);
      request.log.warn({ err: e }, 'could not release idempotency key; will retry');
    });
    throw err;
  }
}

// Only this request's own claim (its creation time): a retry that took the key over after the
// claim timed out holds a claim of its own, which must stay.
const releaseClaim = (db: Db, clientId: string, key: string, claimedAt: Date) =>
  db.query(`DELETE FROM idempotency_keys WHERE client_id = $1 AND key = $2 AND state = 'running' AND pay_id IS NULL AND created_at = $3`, [clientId, key, claimedAt]);

const pendingReleases = new WeakMap<Db, Set<string>>();
function releaseLater(db: Db, clientId: string, key: string, claimedAt: Date): void {
  let set = pendingReleases.get(db);
  if (!set) pendingReleases.set(db, (set = new Set()));
  set.add(JSON.stringify([clientId, key, claimedAt.toISOString()]));
}

/**
 * A cancel or completion whose acquirer answer was lost keeps its key, linked to the payment; the
 * reconciler finishing the operation answers that key here, in its transaction: a retry then
 * replays the result instead of running the operation again.
 */
export async function saveLinkedResponse(q: Queryable, payId: string, status: number, body: unknown): Promise<void> {
  await q.query(
    `UPDATE idempotency_keys SET state = 'done', response_status = $2, response_body = $3, locked_until = NULL WHERE pay_id = $1 AND state = 'running'`,
    [payId, status, JSON.stringify(body)],
  );
}

/** …or, when the acquirer refused it (nothing changed), frees the key for a fresh attempt. */
export async function releaseLinkedClaim(q: Queryable, payId: string): Promise<void> {
  await q.query(`DELETE FROM idempotency_keys WHERE pay_id = $1 AND state = 'running'`, [payId]);
}

/** Releases the claims of failed requests that could not be released at the time (background tick). */
export async function releasePendingClaims(db: Db): Promise<number> {
  const set = pendingReleases.get(db);
  if (!set?.size) return 0;
  let released = 0;
  for (const entry of [...set]) {
    const [clientId, key, claimedAt] = JSON.parse(entry) as [string, string, string];
    await releaseClaim(db, clientId, key, new Date(claimedAt)); // throws while the database is still away: retried next tick
    set.delete(entry);
    released++;
  }
  return released;
}
