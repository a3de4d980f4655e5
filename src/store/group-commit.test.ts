// GroupCommit: concurrent single statements share one transaction, each caller gets its own
// result after the COMMIT, a refused statement fails only its caller, an unavailable database
// fails every caller, and a statement alone runs without BEGIN/COMMIT.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS, openTestDb, type TestDb } from '../testing/databases.ts';
import { DatabaseUnavailableError, type Db } from './db.ts';
import { GroupCommit } from './group-commit.ts';

for (const backend of BACKENDS) {
  describe(`group commit [${backend}]`, () => {
    let t: TestDb;
    before(async () => {
      t = await openTestDb(backend);
      await t.db.exec('CREATE TABLE gc_probe (n int PRIMARY KEY CHECK (n > 0))');
    });
    after(() => t.drop());

    const insert = (q: GroupCommit, n: number) =>
      q.query<{ n: number; xid: string }>(
        'INSERT INTO gc_probe VALUES ($1) RETURNING n, pg_current_xact_id()::text AS xid',
        [n],
      );

    it('runs the statements of one turn in one transaction, each caller with its own result after COMMIT', async () => {
      const gc = new GroupCommit(t.db, { concurrency: 1, maxBatch: 64 });
      const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => insert(gc, n)));
      assert.deepEqual(
        answers.map((a) => a.rows[0]!.n),
        [1, 2, 3, 4, 5],
      );
      assert.equal(new Set(answers.map((a) => a.rows[0]!.xid)).size, 1, 'one transaction');
      assert.deepEqual(
        { transactions: gc.transactions, statements: gc.statements },
        { transactions: 1, statements: 5 },
      );
      // Committed by the time the callers hear back: the rows are there for any connection.
      assert.equal((await t.db.query('SELECT * FROM gc_probe WHERE n <= 5')).rowCount, 5);
    });

    it('a statement the database refuses fails only its caller; the others commit', async () => {
      const gc = new GroupCommit(t.db, { concurrency: 1, maxBatch: 64 });
      const results = await Promise.allSettled([10, -1, 11, 10].map((n) => insert(gc, n)));
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled', 'rejected'],
      );
      assert.match(String((results[1] as PromiseRejectedResult).reason), /check constraint/);
      assert.match(String((results[3] as PromiseRejectedResult).reason), /duplicate key/);
      const { rows } = await t.db.query<{ n: number }>('SELECT n FROM gc_probe WHERE n >= 10 ORDER BY n');
      assert.deepEqual(
        rows.map((r) => r.n),
        [10, 11],
      );
    });

    it('beyond maxBatch and with several batches in flight, every statement is answered once', async () => {
      const gc = new GroupCommit(t.db, { concurrency: 2, maxBatch: 8 });
      const ns = Array.from({ length: 40 }, (_, i) => 100 + i);
      const answers = await Promise.all(ns.map((n) => insert(gc, n)));
      assert.deepEqual(
        answers.map((a) => a.rows[0]!.n),
        ns,
      );
      assert.equal(gc.statements, 40);
      assert.ok(gc.transactions >= 5 && gc.transactions < 40, `${gc.transactions} transactions`);
      assert.equal((await t.db.query('SELECT * FROM gc_probe WHERE n >= 100')).rowCount, 40);
    });

    it('a statement alone, and concurrency 0, run as before: no transaction around them', async () => {
      for (const concurrency of [1, 0]) {
        const seen: string[] = [];
        const spy: Db = {
          ...t.db,
          query: (sql, params, name) => {
            seen.push('query');
            return t.db.query(sql, params, name);
          },
          tx: (fn, opts) => {
            seen.push('tx');
            return t.db.tx(fn, opts);
          },
          batch: (send) => {
            seen.push('batch');
            return t.db.batch(send);
          },
        };
        const alone = new GroupCommit(spy, { concurrency, maxBatch: 64 });
        await insert(alone, 200 + concurrency);
        assert.deepEqual(seen, ['query'], `concurrency ${concurrency}`);
        assert.deepEqual(
          { transactions: alone.transactions, statements: alone.statements },
          { transactions: 1, statements: 1 },
        );
      }
    });

    it('when the database is unavailable every caller gets that error, none is run again alone', async () => {
      let calls = 0;
      const down: Db = {
        ...t.db,
        query: () => {
          calls++;
          return Promise.reject(new DatabaseUnavailableError(new Error('Connection terminated')));
        },
        tx: () => {
          calls++;
          return Promise.reject(new DatabaseUnavailableError(new Error('Connection terminated')));
        },
        batch: () => {
          calls++;
          return Promise.reject(new DatabaseUnavailableError(new Error('Connection terminated')));
        },
      };
      const gc = new GroupCommit(down, { concurrency: 1, maxBatch: 64 });
      const results = await Promise.allSettled([300, 301, 302].map((n) => insert(gc, n)));
      assert.ok(results.every((r) => r.status === 'rejected' && r.reason instanceof DatabaseUnavailableError));
      assert.equal(calls, 1, 'one attempt for the batch, no retries one by one');
    });
  });
}
