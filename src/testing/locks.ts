// Interleavings on PostgreSQL set up by waiting for sessions to block, not by sleeping.
import type { Queryable } from '../store/db.ts';

/**
 * Resolves once at least `n` sessions of the current database wait on a lock (`wait_event`:
 * only that kind, e.g. 'advisory'); throws after 20 s. Ask on a connection outside any
 * transaction: inside one, pg_stat_activity is a snapshot taken once.
 */
export async function untilSessionsWait(q: Queryable, n: number, waitEvent?: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { rows } = await q.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND ($1::text IS NULL OR wait_event = $1)`,
      [waitEvent ?? null],
    );
    if (rows[0]!.n >= n) return;
    if (Date.now() > deadline)
      throw new Error(`${rows[0]!.n} of ${n} sessions wait on a lock${waitEvent ? ` (${waitEvent})` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
