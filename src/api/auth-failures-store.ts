// SQL for the brute-force counters of auth-failures.ts (table auth_failures). Every statement that
// changes several counters locks them in key order: an UPDATE ... WHERE key = ANY locks them in the
// order its plan scans them (the table's physical order on a sequential scan), and two attempts
// locking an address and a client_id in opposite orders deadlock (PostgreSQL aborted one; the
// client got a 500).
import type { Queryable } from '../store/db.ts';

export interface Counter {
  key: string;
  window_start: Date;
  failures: number;
  pending: number;
}

/**
 * Adds one pending attempt to each counter (created, or restarted when its window began at or
 * before `windowStartedBefore`), in one statement, and answers the counters as they now stand.
 */
export async function reserveCounters(
  q: Queryable,
  keys: readonly string[],
  now: Date,
  windowStartedBefore: Date,
): Promise<Counter[]> {
  const { rows } = await q.query<Counter>(
    `INSERT INTO auth_failures (key, window_start, failures, pending)
     SELECT k, $2::timestamptz, 0, 1 FROM unnest($1::text[]) AS k ORDER BY k
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN auth_failures.window_start <= $3 THEN 0 ELSE auth_failures.failures END,
       pending = CASE WHEN auth_failures.window_start <= $3 THEN 1 ELSE auth_failures.pending + 1 END,
       window_start = CASE WHEN auth_failures.window_start <= $3 THEN EXCLUDED.window_start ELSE auth_failures.window_start END
     RETURNING key, window_start, failures, pending`,
    [[...keys].sort(), now, windowStartedBefore],
    'auth_failures_reserve',
  );
  return rows;
}

/** Gives each counter's pending attempt back, counting it as a failure when `asFailure`. */
export async function releaseCounters(q: Queryable, keys: readonly string[], asFailure: boolean): Promise<void> {
  await q.query(
    `WITH locked AS (SELECT key FROM auth_failures WHERE key = ANY ($1::text[]) ORDER BY key FOR UPDATE)
     UPDATE auth_failures a SET pending = GREATEST(a.pending - 1, 0), failures = a.failures + $2 FROM locked WHERE a.key = locked.key`,
    [keys, asFailure ? 1 : 0],
    'auth_failures_release',
  );
}

/**
 * Drops the counters matching one of `patterns` (LIKE) whose window began at or before `before`.
 * Counters an attempt holds right now are skipped (SKIP LOCKED): pruning never waits on, nor
 * deadlocks with, an attempt.
 */
export async function pruneCounters(q: Queryable, before: Date, patterns: readonly string[]): Promise<void> {
  await q.query(
    `DELETE FROM auth_failures WHERE key IN (
       SELECT key FROM auth_failures WHERE window_start <= $1 AND pending = 0 AND key LIKE ANY ($2::text[]) ORDER BY key FOR UPDATE SKIP LOCKED)`,
    [before, patterns],
  );
}
