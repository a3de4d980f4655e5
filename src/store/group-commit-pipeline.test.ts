// The group commit's batch goes to PostgreSQL in one write, not one round trip per statement
// (issue 25): with each statement awaited in turn, a batch of 32 cost 32 turns of a busy event loop
// — 240 ms under the lifecycle load. A TCP relay between the pool and the server counts what the
// client sends: the relay runs in this process, so what the pool writes at once reaches it as one
// read (or two), while a statement sent only after the previous answer is a read of its own.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describePostgres } from '../testing/postgres-only.ts';
import { onTestPostgres } from '../testing/wire-relay.ts';
import { GroupCommit } from './group-commit.ts';

describePostgres('group commit on the wire [postgres]', () => {
  it('sends a batch of 32 statements, BEGIN and COMMIT in one write, and commits them in one transaction', async () => {
    await onTestPostgres({ wire: true }, async (db, relayed) => {
      const wire = relayed!;
      await db.exec('CREATE TABLE gc_wire (n int PRIMARY KEY)');
      const gc = new GroupCommit(db.ownPool(1), { concurrency: 1, maxBatch: 64 });
      const insert = (n: number) =>
        gc.query<{ n: number; xid: string }>(
          'INSERT INTO gc_wire VALUES ($1) RETURNING n, pg_current_xact_id()::text AS xid',
          [n],
        );
      await insert(0); // the own pool's connection opened and the statement prepared
      wire.count(true);
      const ns = Array.from({ length: 32 }, (_, i) => i + 1);
      const answers = await Promise.all(ns.map(insert));
      wire.count(false);
      assert.deepEqual(
        answers.map((a) => a.rows[0]!.n),
        ns,
      );
      assert.equal(new Set(answers.map((a) => a.rows[0]!.xid)).size, 1, 'one transaction');
      // BEGIN, the 32 statements and COMMIT in one write (the relay may read it in two pieces); one
      // round trip per statement would be 34 writes.
      assert.ok(wire.writes() <= 2, `the client wrote ${wire.writes()} times for a batch of 32`);
      assert.equal((await db.query('SELECT * FROM gc_wire')).rowCount, 33);
    });
  });

  it('a refused statement in a sent batch fails only its caller; the rest commit when run again alone', async () => {
    await onTestPostgres({ wire: false }, async (db) => {
      await db.exec('CREATE TABLE gc_wire (n int PRIMARY KEY CHECK (n > 0))');
      const gc = new GroupCommit(db.ownPool(1), { concurrency: 1, maxBatch: 64 });
      // The refused one in the middle: the statements after it met the aborted transaction.
      const results = await Promise.allSettled(
        [1, 2, -3, 4, 5].map((n) => gc.query('INSERT INTO gc_wire VALUES ($1)', [n])),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      assert.match(String((results[2] as PromiseRejectedResult).reason), /check constraint/);
      const { rows } = await db.query<{ n: number }>('SELECT n FROM gc_wire ORDER BY n');
      assert.deepEqual(
        rows.map((r) => r.n),
        [1, 2, 4, 5],
      );
      assert.deepEqual(
        { transactions: gc.transactions, statements: gc.statements },
        { transactions: 6, statements: 10 },
      );
    });
  });
});
