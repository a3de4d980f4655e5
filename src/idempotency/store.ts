// SQL for idempotency keys: one function per database operation. A key belongs to the request that
// claimed it (its owner, a random id) until that request finishes or is presumed dead (its lock, in
// real time, ran out); only the owner may move the key on, so a request that lost its key to a
// retry rolls its own change back instead of applying it twice.
import type { Queryable } from '../store/db.ts';

export const RECOVERY_POINTS = ['claimed', 'created', 'acquirer_called', 'finished'] as const;
/**
 * How far a request got: `claimed` (nothing done yet), `created` (its payment exists), `acquirer_called`
 * (its payment or operation is processing: the acquirer may have been asked), `finished` (its result
 * is stored and replayed to every retry).
 */
export type RecoveryPoint = (typeof RECOVERY_POINTS)[number];

export interface KeyId {
  clientId: string;
  key: string;
}

export interface KeyRow {
  operation: string | null;
  request_hash: string;
  recovery_point: RecoveryPoint;
  owner: string | null;
  result: unknown;
  pay_id: string | null;
  locked_until: Date | null;
  /** Keys finished before recovery points existed (migration 007) kept their rendered answer. */
  response_status: number | null;
  response_body: string | null;
}

export interface Claim extends KeyId {
  operation: string;
  requestHash: string;
  owner: string;
  /** Business time: the 24 h window follows the sandbox clock. */
  now: Date;
  /** Real time: how long the owner may hold the key before a retry can take it over. */
  lockedUntil: Date;
  /** A key created before this is past its window: the new request replaces it. */
  expiredBefore: Date;
}

/** Claims the key for a new request; false when another request has it (or had it). */
export async function claimKey(q: Queryable, c: Claim): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO idempotency_keys (client_id, key, operation, request_hash, recovery_point, owner, created_at, locked_until)
     VALUES ($1, $2, $3, $4, 'claimed', $5, $6, $7)
     ON CONFLICT (client_id, key) DO UPDATE SET operation = EXCLUDED.operation, request_hash = EXCLUDED.request_hash,
       recovery_point = 'claimed', owner = EXCLUDED.owner, result = NULL, pay_id = NULL, work = NULL, response_status = NULL,
       response_body = NULL, created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until
     WHERE idempotency_keys.created_at <= $8`,
    [c.clientId, c.key, c.operation, c.requestHash, c.owner, c.now, c.lockedUntil, c.expiredBefore],
    'idempotency_claim',
  );
  return rowCount > 0;
}

export async function selectKey(q: Queryable, id: KeyId): Promise<KeyRow | null> {
  const { rows } = await q.query<KeyRow>(
    `SELECT operation, request_hash, recovery_point, owner, result, pay_id, locked_until, response_status, response_body
     FROM idempotency_keys WHERE client_id = $1 AND key = $2`,
    [id.clientId, id.key],
    'idempotency_select',
  );
  return rows[0] ?? null;
}

/** Takes over a key whose owner is presumed dead; the key as it was left, or null when it was not dead. */
export async function takeOverKey(
  q: Queryable,
  id: KeyId,
  owner: string,
  now: Date,
  lockedUntil: Date,
): Promise<{ recovery_point: RecoveryPoint; pay_id: string | null } | null> {
  const { rows } = await q.query<{ recovery_point: RecoveryPoint; pay_id: string | null }>(
    `UPDATE idempotency_keys SET owner = $3, locked_until = $5
     WHERE client_id = $1 AND key = $2 AND recovery_point <> 'finished' AND locked_until <= $4
     RETURNING recovery_point, pay_id`,
    [id.clientId, id.key, owner, now, lockedUntil],
  );
  return rows[0] ?? null;
}

/** What a linked key's request is doing at its payment (the domain's word, not an API name). */
export type LinkedWork = 'operation';

/** The owner reached a recovery point (and linked its payment, and what it does there), in the transaction of that phase. */
export async function advanceKey(
  q: Queryable,
  id: KeyId,
  owner: string,
  point: RecoveryPoint,
  payId: string | null,
  lockedUntil: Date,
  work: LinkedWork | null = null,
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE idempotency_keys SET recovery_point = $4, pay_id = COALESCE($5, pay_id), locked_until = $6, work = COALESCE($7, work)
     WHERE client_id = $1 AND key = $2 AND owner = $3`,
    [id.clientId, id.key, owner, point, payId, lockedUntil, work],
    'idempotency_advance',
  );
  return rowCount > 0;
}

/** The owner's request finished with `result`, stored in the transaction of its last change. */
export async function finishKey(q: Queryable, id: KeyId, owner: string, result: unknown): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE idempotency_keys SET recovery_point = 'finished', result = $4, locked_until = NULL
     WHERE client_id = $1 AND key = $2 AND owner = $3`,
    [id.clientId, id.key, owner, JSON.stringify(result)],
    'idempotency_finish',
  );
  return rowCount > 0;
}

/** Frees the owner's key: its request changed nothing that lasts, so a retry starts afresh. */
export async function releaseKey(q: Queryable, id: KeyId, owner: string, onlyIfClaimed: boolean): Promise<void> {
  await q.query(
    `DELETE FROM idempotency_keys WHERE client_id = $1 AND key = $2 AND owner = $3${onlyIfClaimed ? ` AND recovery_point = 'claimed'` : ''}`,
    [id.clientId, id.key, owner],
  );
}

/**
 * The owner's request ended with an error after its payment was created (the database went away
 * mid-request, a COMMIT whose outcome it never learned): the key keeps its recovery point but its lock is lifted,
 * so the client's retry takes it over at once and resumes from what committed — instead of being
 * answered 409 until the lock runs out.
 */
export async function unlockKey(q: Queryable, id: KeyId, owner: string, now: Date): Promise<void> {
  // Only at `created`: a key at `acquirer_called` waits for the reconciler to learn what the
  // acquirer did (a retry meanwhile is told 409), as before.
  await q.query(
    `UPDATE idempotency_keys SET locked_until = $4 WHERE client_id = $1 AND key = $2 AND owner = $3 AND recovery_point = 'created'`,
    [id.clientId, id.key, owner, now],
  );
}

/** The reconciler finished the operation a key's request left processing: retries now replay it. */
export async function finishLinkedKeys(q: Queryable, payId: string, work: LinkedWork, result: unknown): Promise<void> {
  await q.query(
    `UPDATE idempotency_keys SET recovery_point = 'finished', result = $3, locked_until = NULL
     WHERE pay_id = $1 AND work = $2 AND recovery_point = 'acquirer_called'`,
    [payId, work, JSON.stringify(result)],
  );
}

/** …or the acquirer refused it (nothing changed): the key is freed for a fresh attempt. */
export async function releaseLinkedKeys(q: Queryable, payId: string, work: LinkedWork): Promise<void> {
  await q.query(`DELETE FROM idempotency_keys WHERE pay_id = $1 AND work = $2 AND recovery_point = 'acquirer_called'`, [
    payId,
    work,
  ]);
}

/** Drops keys past their window. */
export async function pruneKeys(q: Queryable, createdBefore: Date): Promise<void> {
  await q.query('DELETE FROM idempotency_keys WHERE created_at <= $1', [createdBefore]);
}
