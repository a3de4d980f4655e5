// The brute-force counters under concurrent attempts on PostgreSQL: every statement that changes
// two counters (an address and a client_id) must lock them in one order, or two attempts deadlock.
// Found by a full `npm test` run: 60 parallel wrong secrets over two gateway processes got 500s
// (PostgreSQL aborted a deadlocked statement) and, with the pool held by the deadlocked
// statements, 503s.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { Clock } from '../clock.ts';
import { migrate } from '../store/migrate.ts';
import { openTestDb, type TestDb } from '../testing/databases.ts';
import { untilSessionsWait } from '../testing/locks.ts';
import { describePostgres } from '../testing/postgres-only.ts';
import { AuthFailures } from './auth-failures.ts';

const IP = '203.0.113.7';
const CLIENT = 'client-deadlock';
const KEYS = [`cid:${CLIENT}`, `ip:${IP}`];

describePostgres('brute-force counters: one lock order [postgres]', () => {
  let db: TestDb;
  let holder: pg.Client;
  before(async () => {
    db = await openTestDb('postgres');
    await migrate(db.db);
    holder = new pg.Client({ connectionString: db.url! });
    await holder.connect();
  });
  after(async () => {
    await holder.end();
    await db.drop();
  });

  it('an attempt settling and another reserving the same address and client_id never deadlock', async () => {
    const guard = new AuthFailures(db.db, new Clock(), 10, 600);
    // The two counters as one attempt holds them, the address's row stored first: a plan that
    // scans the table locks the address before the client_id, reserve() the other way round.
    const now = new Date();
    for (const key of [...KEYS].reverse()) {
      await db.db.query('INSERT INTO auth_failures (key, window_start, failures, pending) VALUES ($1, $2, 0, 1)', [
        key,
        now,
      ]);
    }
    // Another session holds the address's counter: the settling attempt waits for it, then the
    // reserving one takes the client_id and waits for the address behind it.
    await holder.query('BEGIN');
    await holder.query('SELECT key FROM auth_failures WHERE key = $1 FOR UPDATE', [`ip:${IP}`]);
    const settling = guard.failed({ keys: KEYS });
    await untilSessionsWait(db.db, 1);
    const reserving = guard.reserve(CLIENT, IP);
    await untilSessionsWait(db.db, 2);
    await holder.query('COMMIT');
    // Before the fix one of the two was aborted here: "deadlock detected" (40P01).
    const [settled, reserved] = await Promise.allSettled([settling, reserving]);
    assert.equal(settled.status, 'fulfilled', settled.status === 'rejected' ? String(settled.reason) : '');
    assert.equal(reserved.status, 'fulfilled', reserved.status === 'rejected' ? String(reserved.reason) : '');
    const { rows } = await db.db.query<{ key: string; failures: number; pending: number }>(
      'SELECT key, failures, pending FROM auth_failures ORDER BY key',
    );
    assert.deepEqual(
      rows,
      KEYS.map((key) => ({ key, failures: 1, pending: 1 })),
    );
  });

  it('pruning skips counters an attempt holds instead of waiting for them', async () => {
    const clock = new Clock();
    const guard = new AuthFailures(db.db, clock, 10, 600);
    await db.db.query('DELETE FROM auth_failures');
    const old = new Date(Date.now() - 3_600_000);
    for (const key of ['cid:a', 'cid:b', 'ip:198.51.100.1']) {
      await db.db.query('INSERT INTO auth_failures (key, window_start, failures, pending) VALUES ($1, $2, 3, 0)', [
        key,
        old,
      ]);
    }
    await holder.query('BEGIN');
    await holder.query(`SELECT key FROM auth_failures WHERE key = 'cid:b' FOR UPDATE`);
    try {
      await guard.prune(); // would wait on cid:b for ever without SKIP LOCKED
    } finally {
      await holder.query('COMMIT');
    }
    const { rows } = await db.db.query<{ key: string }>('SELECT key FROM auth_failures ORDER BY key');
    assert.deepEqual(
      rows.map((r) => r.key),
      ['cid:b'],
    );
    await guard.prune();
    assert.equal((await db.db.query('SELECT key FROM auth_failures')).rows.length, 0);
  });
});
