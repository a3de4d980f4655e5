// PGlite's statements in one call, prepared once (pglite-statements.ts): the rows and errors are
// PGlite's own query()'s, a statement with parameters is parsed once and then costs one call into
// PostgreSQL, batches' large statements stay unnamed, and transactions, concurrency and
// notifications behave as before.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { seedPgliteDataDir } from '../testing/databases.ts';
import type { Db } from './db.ts';
import { openPglite } from './pglite.ts';
import { statementRunner } from './pglite-statements.ts';

// Each database a copy of the test run's initialised template: an in-memory PGlite runs initdb,
// 4–6 s of CPU each (this file took 20 s of CPU with three of them).
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});
async function newDataDir(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-statements-'));
  dirs.push(dir);
  return seedPgliteDataDir(dir);
}

/** Counts the calls into PostgreSQL made while `fn` runs. */
async function callsDuring(pg: PGlite, fn: () => Promise<unknown>): Promise<number> {
  const original = pg.execProtocolRawStream;
  let calls = 0;
  pg.execProtocolRawStream = (...args) => {
    calls++;
    return original.apply(pg, args);
  };
  try {
    await fn();
  } finally {
    pg.execProtocolRawStream = original;
  }
  return calls;
}

/** The Describe messages sent into PostgreSQL while `fn` runs (a message: its type, its length). */
async function describesDuring(pg: PGlite, fn: () => Promise<unknown>): Promise<number> {
  const original = pg.execProtocolRawStream;
  let describes = 0;
  pg.execProtocolRawStream = (message, ...rest) => {
    const view = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
    for (let at = 0; at < view.length; at += 1 + view.readInt32BE(at + 1)) if (view[at] === 0x44) describes++; // 'D'
    return original.call(pg, message, ...rest);
  };
  try {
    await fn();
  } finally {
    pg.execProtocolRawStream = original;
  }
  return describes;
}

const prepared = async (pg: PGlite) =>
  (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0]!.n;

describe('PGlite statements in one call', () => {
  let pg: PGlite;
  let run: ReturnType<typeof statementRunner>;
  before(async () => {
    pg = await PGlite.create(await newDataDir());
    run = statementRunner(pg, () => {});
    await pg.exec(`CREATE TABLE t (id int PRIMARY KEY, big bigint, amount numeric, flag boolean, at timestamptz,
      doc jsonb, tags text[], bytes bytea, note text)`);
  });
  after(() => pg.close());
  const locked = <T>(fn: () => Promise<T>) => pg._runExclusiveQuery(fn);

  it('gives the rows, types and row counts that PGlite’s query() gives', async () => {
    const at = new Date('2026-11-28T10:11:12.345Z');
    const values = [
      1,
      9007199254740993n,
      '12.30',
      true,
      at,
      { a: [1, 'x'] },
      ['a', 'b,c'],
      Buffer.from([0, 255]),
      null,
    ];
    const insert = 'INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *';
    const ours = await locked(() => run(insert, values));
    await pg.query('DELETE FROM t');
    const theirs = await pg.query(insert, values);
    assert.deepEqual(ours.rows, theirs.rows);
    assert.equal(ours.rowCount, 1);
    const select = 'SELECT id, big, amount, flag, at, doc, tags, bytes, note FROM t WHERE id = $1';
    assert.deepEqual((await locked(() => run(select, [1]))).rows, (await pg.query(select, [1])).rows);
    // Without parameters, and a SELECT's row count is its rows (as on PostgreSQL).
    assert.deepEqual(await locked(() => run('SELECT 2 AS two UNION ALL SELECT 3')), {
      rows: [{ two: 2 }, { two: 3 }],
      rowCount: 2,
    });
    // An UPDATE's row count is the rows it changed.
    assert.equal((await locked(() => run('UPDATE t SET note = $1 WHERE id >= $2', ['n', 0]))).rowCount, 1);
  });

  it('parses a statement with parameters once: then one call per execution', async () => {
    const sql = 'SELECT id FROM t WHERE id = $1 AND note IS DISTINCT FROM $2';
    const before = await prepared(pg);
    assert.equal(await callsDuring(pg, () => locked(() => run(sql, [1, 'z']))), 2, 'prepare, then execute');
    assert.equal(await callsDuring(pg, () => locked(() => run(sql, [1, 'z']))), 1);
    assert.equal(await callsDuring(pg, () => locked(() => run(sql, [2, null]))), 1);
    assert.equal(await prepared(pg), before + 1, 'one named statement for the three executions');
    assert.equal(await callsDuring(pg, () => locked(() => run('SELECT 1'))), 1, 'no parameters: one call');
  });

  it('describes a named statement’s result when it prepares it, not at each execution', async () => {
    const sql = 'SELECT id, note, $2::int AS k FROM t WHERE id = $1';
    assert.equal(await describesDuring(pg, () => locked(() => run(sql, [1, 7]))), 1, 'the statement, once');
    assert.equal(await describesDuring(pg, () => locked(() => run(sql, [1, 8]))), 0);
    assert.deepEqual((await locked(() => run(sql, [1, 9]))).rows, (await pg.query(sql, [1, 9])).rows);
    assert.equal(await describesDuring(pg, () => locked(() => run('SELECT 1 AS one'))), 1, 'unnamed: each time');
    // Its columns cannot change under it: PostgreSQL refuses the statement once the table has.
    await pg.exec('CREATE TABLE reshaped (n int)');
    await pg.exec('INSERT INTO reshaped VALUES (1)');
    const star = 'SELECT * FROM reshaped WHERE n = $1';
    assert.deepEqual((await locked(() => run(star, [1]))).rows, [{ n: 1 }]);
    await pg.exec("ALTER TABLE reshaped ADD COLUMN label text DEFAULT 'new'");
    await assert.rejects(
      locked(() => run(star, [1])),
      /cached plan must not change result type/,
    );
  });

  it('leaves statements with many parameters (batches of rows) unnamed', async () => {
    const before = await prepared(pg);
    const n = 50;
    const sql = `SELECT ${Array.from({ length: n }, (_, i) => `$${i + 1}::int`).join(' + ')} AS total`;
    const params = Array.from({ length: n }, (_, i) => i);
    for (let k = 0; k < 2; k++) {
      assert.equal(await callsDuring(pg, () => locked(() => run(sql, params))), 2, 'parsed at each execution');
      assert.deepEqual((await locked(() => run<{ total: number }>(sql, params))).rows, [{ total: 1225 }]);
    }
    assert.equal(await prepared(pg), before, 'nothing kept');
  });

  it('throws PostgreSQL’s error, and the next statement runs as usual', async () => {
    await assert.rejects(
      locked(() => run('INSERT INTO t (id) VALUES ($1)', [1])),
      (err: { code?: string }) => err.code === '23505',
    );
    await assert.rejects(
      locked(() => run('SELEC id FROM t WHERE id = $1', [1])),
      (err: { code?: string }) => err.code === '42601',
    );
    assert.deepEqual((await locked(() => run('SELECT id FROM t WHERE id = $1', [1]))).rows, [{ id: 1 }]);
  });
});

describe('PGlite database through the runner', () => {
  let db: Db;
  before(async () => {
    db = await openPglite(await newDataDir());
    await db.exec('CREATE TABLE n (k int PRIMARY KEY, v int)');
  });
  after(() => db.close());

  it('rolls a failed transaction back whole, and keeps a committed one', async () => {
    await assert.rejects(
      db.tx(async (q) => {
        await q.query('INSERT INTO n VALUES ($1, $2)', [1, 1]);
        await q.query('INSERT INTO n VALUES ($1, $2)', [1, 2]);
      }),
      (err: { code?: string }) => err.code === '23505',
    );
    assert.equal((await db.query('SELECT * FROM n')).rowCount, 0);
    await db.tx(async (q) => {
      await q.query('INSERT INTO n VALUES ($1, $2)', [1, 1]);
    });
    assert.deepEqual((await db.query('SELECT k, v FROM n WHERE k = $1', [1])).rows, [{ k: 1, v: 1 }]);
  });

  it('serialises statements asked at once, inside and outside transactions', async () => {
    await db.query('DELETE FROM n');
    // Transactions that read then write the same row: interleaved statements would lose updates.
    await db.query('INSERT INTO n VALUES ($1, $2)', [0, 0]);
    const bump = () =>
      db.tx(async (q) => {
        const { rows } = await q.query<{ v: number }>('SELECT v FROM n WHERE k = $1', [0]);
        await q.query('UPDATE n SET v = $2 WHERE k = $1', [0, rows[0]!.v + 1]);
      });
    await Promise.all([
      ...Array.from({ length: 20 }, bump),
      ...Array.from({ length: 20 }, (_, i) => db.query('INSERT INTO n VALUES ($1, $2)', [i + 1, i])),
    ]);
    assert.deepEqual((await db.query('SELECT v FROM n WHERE k = $1', [0])).rows, [{ v: 20 }]);
    assert.equal((await db.query('SELECT * FROM n WHERE k > $1', [0])).rowCount, 20);
  });

  it('delivers notifications sent by its statements', async () => {
    const heard: string[] = [];
    await db.listen('runner_test', (payload) => heard.push(payload));
    await db.query('SELECT pg_notify($1, $2)', ['runner_test', 'alone']);
    await db.tx(async (q) => {
      await q.query('SELECT pg_notify($1, $2)', ['runner_test', 'in a transaction']);
    });
    for (let i = 0; i < 100 && heard.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(heard, ['alone', 'in a transaction']);
  });

  it('refuses statements once closed', async () => {
    const other = await openPglite(await newDataDir());
    await other.close();
    await assert.rejects(other.query('SELECT $1::int', [1]), /closed/);
  });
});
