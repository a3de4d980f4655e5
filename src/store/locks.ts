// Transaction-scoped advisory locks: held until the transaction ends, so they work through a
// transaction pooler (docs/pgbouncer.md) and serialise one kind of work across gateway processes.
import type { Queryable } from './db.ts';

/** Waits for, then holds until the transaction ends, the lock `key`. `name`: a prepared statement's. */
export async function advisoryXactLock(q: Queryable, key: number, name?: string): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock($1)', [key], name);
}
