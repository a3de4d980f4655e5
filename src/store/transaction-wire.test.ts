// A transaction's statements on the wire (issue 25): BEGIN leaves with the transaction's first
// statements, and statements a caller asks together (one Promise.all) leave in one write (one
// system call, not one each) — each of a refund's two transactions, whose independent statements
// are now asked together, is three round trips instead of six. A statement refused among
// ones sent together rolls the whole transaction back, as it did one at a time.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describePostgres } from '../testing/postgres-only.ts';
import { onTestPostgres } from '../testing/wire-relay.ts';

describePostgres('transactions on the wire [postgres]', () => {
  it('sends BEGIN with the first statements and the statements asked together in one write each', async () => {
    await onTestPostgres({ wire: true }, async (db, relayed) => {
      const wire = relayed!;
      await db.exec('CREATE TABLE tx_wire (n int PRIMARY KEY, v int NOT NULL)');
      await db.exec('INSERT INTO tx_wire SELECT g, 0 FROM generate_series(1, 3) g');
      const work = (q: Parameters<Parameters<typeof db.tx>[0]>[0]) => async () => {
        const read = await Promise.all(
          [1, 2, 3].map((n) => q.query<{ v: number }>('SELECT v FROM tx_wire WHERE n = $1 FOR UPDATE', [n])),
        );
        const sum = read.reduce((a, r) => a + r.rows[0]!.v, 0);
        await Promise.all([
          q.query('UPDATE tx_wire SET v = v + $2 WHERE n = $1', [1, sum + 1]),
          q.query('UPDATE tx_wire SET v = v + $2 WHERE n = $1', [2, sum + 2]),
        ]);
        return sum;
      };
      await db.tx((q) => work(q)()); // the connection opened and the statements prepared
      wire.count(true);
      const sum = await db.tx((q) => work(q)());
      wire.count(false);
      assert.equal(sum, 3);
      // BEGIN + 3 locks, 2 updates, COMMIT: 3 writes. One statement after the other's answer would be
      // 7; with BEGIN sent alone, 4 (what this relay read before the change).
      assert.equal(wire.writes(), 3, `the client wrote ${wire.writes()} times`);
      const { rows } = await db.query<{ n: number; v: number }>('SELECT n, v FROM tx_wire ORDER BY n');
      assert.deepEqual(rows, [
        { n: 1, v: 5 },
        { n: 2, v: 7 },
        { n: 3, v: 0 },
      ]);
    });
  });

  it('rolls back everything when one of the statements sent together is refused, with its error', async () => {
    await onTestPostgres({ wire: false }, async (db) => {
      await db.exec('CREATE TABLE tx_wire (n int PRIMARY KEY CHECK (n > 0))');
      await assert.rejects(
        db.tx((q) =>
          Promise.all([1, -2, 3].map((n) => q.query('INSERT INTO tx_wire VALUES ($1)', [n]))).then(() => 'done'),
        ),
        /check constraint/,
      );
      assert.equal((await db.query('SELECT * FROM tx_wire')).rowCount, 0, 'nothing committed');
      // The connection is usable afterwards: the next transaction commits.
      await db.tx((q) => q.query('INSERT INTO tx_wire VALUES ($1)', [7]));
      assert.equal((await db.query('SELECT * FROM tx_wire')).rowCount, 1);
    });
  });
});
