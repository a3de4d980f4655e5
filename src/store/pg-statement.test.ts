// A prepared statement's result is described once per connection (issue 25): PostgreSQL sends no
// RowDescription for its later executions, and the rows are what pg's own Query gives — every
// column type the gateway stores, nulls, a statement without a result, one that fails and runs
// again, and executions of a new statement pipelined behind its first.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import pg from 'pg';
import { describePostgres } from '../testing/postgres-only.ts';
import { onTestPostgres } from '../testing/wire-relay.ts';

const WIDE = `SELECT $1::int AS i, $2::bigint AS b, $3::numeric AS n, $4::text AS t, $5::timestamptz AS at,
  $6::jsonb AS j, $7::int[] AS ints, $8::text[] AS texts, $9::bool AS yes, $10::date AS d, $11::text AS missing`;
const wideParams = (k: number) => [
  k,
  2 ** 40 + k,
  `12.${k}`,
  `ქართული ${k} "quoted" {brace}`,
  new Date(Date.UTC(2026, 10, 29, 10, k)),
  { k, nested: [k, 'x'] },
  [k, k + 1],
  ['a', `b,${k}`],
  k % 2 === 0,
  '2026-11-29',
  null,
];

/** The same statement through pg's own Query (a client of its own, described at every execution). */
async function plainRows(url: string, sql: string, params: unknown[]): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query({ name: 'plain', text: sql, values: params })).rows;
  } finally {
    await client.end();
  }
}

describePostgres('statements described once per connection [postgres]', () => {
  it('describes a named statement at its first execution only, and its rows stay what pg gives', async () => {
    await onTestPostgres({ wire: true }, async (db, relayed) => {
      const wire = relayed!;
      wire.count(true);
      const first = await db.query(WIDE, wideParams(1));
      assert.equal(wire.answered('T'), 1, 'the first execution is described');
      const later = [];
      for (let k = 2; k <= 5; k++) later.push((await db.query(WIDE, wideParams(k))).rows[0]);
      wire.count(false);
      assert.equal(wire.answered('T'), 1, `4 later executions: ${wire.answered('T') - 1} descriptions more`);
      assert.equal(wire.answered('D'), 5, 'a row for each execution');
      const url = wire.url;
      assert.deepEqual(first.rows, await plainRows(url, WIDE, wideParams(1)));
      for (let k = 2; k <= 5; k++) assert.deepEqual(later[k - 2], (await plainRows(url, WIDE, wideParams(k)))[0]);
      assert.equal((later[3] as { missing: unknown }).missing, null);
      assert.equal((later[3] as { b: unknown }).b, 2 ** 40 + 5, 'int8 as a number, as the gateway parses it');
    });
  });

  it('runs a statement without a result again without a description, with its row count', async () => {
    await onTestPostgres({ wire: true }, async (db, relayed) => {
      const wire = relayed!;
      await db.exec('CREATE TABLE described (n int PRIMARY KEY, v text)');
      wire.count(true);
      for (let n = 1; n <= 4; n++) {
        const res = await db.query('INSERT INTO described VALUES ($1, $2)', [n, `v${n}`]);
        assert.equal(res.rowCount, 1);
        assert.deepEqual(res.rows, []);
      }
      const moved = await db.query('UPDATE described SET v = $1 WHERE n > $2', ['w', 1]);
      wire.count(false);
      assert.equal(moved.rowCount, 3);
      assert.equal(wire.answered('n'), 2, 'NoData once per statement');
      assert.equal(wire.answered('T'), 0);
    });
  });

  it('describes again after a failed execution, and the rows after it are right', async () => {
    await onTestPostgres({ wire: true }, async (db, relayed) => {
      const wire = relayed!;
      const sql = 'SELECT 10 / $1::int AS q, $2::text AS t';
      assert.deepEqual((await db.query(sql, [2, 'a'])).rows, [{ q: 5, t: 'a' }]);
      await assert.rejects(db.query(sql, [0, 'b']), /division by zero/);
      wire.count(true);
      assert.deepEqual((await db.query(sql, [5, 'c'])).rows, [{ q: 2, t: 'c' }]);
      assert.deepEqual((await db.query(sql, [1, 'd'])).rows, [{ q: 10, t: 'd' }]);
      wire.count(false);
      assert.equal(wire.answered('T'), 1, 'described once after the failure, not at every execution');
    });
  });

  it('answers executions pipelined behind a first one with their own rows', async () => {
    await onTestPostgres({ wire: true }, async (db, relayed) => {
      const wire = relayed!;
      const sql = 'SELECT $1::int * 2 AS twice, repeat($2::text, $1::int) AS s';
      const rows = await db.tx((q) => Promise.all([1, 2, 3, 4].map((k) => q.query(sql, [k, 'x']))));
      assert.deepEqual(
        rows.map((r) => r.rows[0]),
        [1, 2, 3, 4].map((k) => ({ twice: 2 * k, s: 'x'.repeat(k) })),
      );
      wire.count(true);
      const again = await db.tx((q) => Promise.all([5, 6].map((k) => q.query(sql, [k, 'y']))));
      wire.count(false);
      assert.deepEqual(
        again.map((r) => r.rows[0]),
        [5, 6].map((k) => ({ twice: 2 * k, s: 'y'.repeat(k) })),
      );
      assert.equal(wire.answered('T'), 0, 'described by the first transaction');
    });
  });

  it('fails rather than answer with the old columns once a table it reads has changed', async () => {
    await onTestPostgres({ wire: false }, async (db) => {
      await db.exec('CREATE TABLE reshaped (n int PRIMARY KEY)');
      await db.exec('INSERT INTO reshaped VALUES (1)');
      const sql = 'SELECT * FROM reshaped WHERE n = $1';
      assert.deepEqual((await db.query(sql, [1])).rows, [{ n: 1 }]);
      await db.exec("ALTER TABLE reshaped ADD COLUMN label text NOT NULL DEFAULT 'new'");
      // PostgreSQL refuses the prepared statement (its result would change): no row with the old
      // columns reaches the caller.
      await assert.rejects(db.query(sql, [1]), /cached plan must not change result type/);
    });
  });
});
