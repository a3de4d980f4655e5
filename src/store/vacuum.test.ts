// The embedded database's vacuum (vacuum.ts): autovacuum's rules applied by the gateway, since
// PGlite has no autovacuum. The rule on both backends (the SQL is one dialect); the background job
// on PGlite, where without it the callback claim's index kept an entry per delivery ever made.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS, openTestDb, type TestDb } from '../testing/databases.ts';
import { MerchantClient, createPaid, startTestGateway, type TestGateway } from '../testing/harness.ts';
import { Receiver } from '../testing/receiver.ts';
import { waitUntil } from '../testing/wait.ts';
import { claimDue } from '../callbacks/store.ts';
import type { Db, Queryable } from './db.ts';
import { vacuumDue, vacuumsItself } from './vacuum.ts';

interface TableStats {
  n_live_tup: number;
  n_dead_tup: number;
  vacuum_count: number;
  analyze_count: number;
}

/**
 * The table's statistics once they show `ready` (the backend reports them when idle, at most once
 * a second unless forced): waits for that report, never for a fixed time.
 */
async function statsOf(q: Queryable, table: string, ready: (s: TableStats) => boolean): Promise<TableStats> {
  let stats: TableStats | undefined;
  await waitUntil(`statistics of ${table}`, async () => {
    await q.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await q.query<TableStats>(
      `SELECT n_live_tup::int, n_dead_tup::int, (vacuum_count + autovacuum_count)::int AS vacuum_count,
              (analyze_count + autoanalyze_count)::int AS analyze_count
       FROM pg_stat_user_tables WHERE relname = $1`,
      [table],
    );
    stats = rows[0];
    return stats !== undefined && ready(stats);
  });
  return stats!;
}

for (const backend of BACKENDS) {
  describe(`vacuum by autovacuum's rules [${backend}]`, () => {
    let t: TestDb;
    before(async () => {
      t = await openTestDb(backend);
      // No autovacuum of the server's for these tables: what happens is what vacuumDue does.
      for (const name of ['churned', 'quiet'])
        await t.db.query(`CREATE TABLE ${name} (id int PRIMARY KEY, v int NOT NULL) WITH (autovacuum_enabled = false)`);
    });
    after(() => t.drop());

    it('vacuums a table whose dead rows pass the threshold, analyses one past the analyse threshold only, and leaves the rest', async () => {
      const { db } = t;
      await db.query('INSERT INTO churned SELECT g, 0 FROM generate_series(1, 500) g');
      await db.query('INSERT INTO quiet SELECT g, 0 FROM generate_series(1, 1000) g');
      await db.query('VACUUM (ANALYZE) churned');
      await db.query('VACUUM (ANALYZE) quiet');
      // churned: 500 dead rows > 50 + 20 % of 500. quiet: 120 changed rows > 50 + 10 % of 1,000
      // (analyse), 120 dead < 50 + 20 % (no vacuum).
      // In one transaction whose backend reports its statistics as it ends (a pool's other
      // connections would report theirs up to 10 s later on PostgreSQL).
      await db.tx(async (q) => {
        await q.query('UPDATE churned SET v = v + 1');
        await q.query('UPDATE quiet SET v = v + 1 WHERE id <= 120');
        await q.query('SELECT pg_stat_force_next_flush()');
      });
      await statsOf(db, 'churned', (s) => s.n_dead_tup >= 500);
      await statsOf(db, 'quiet', (s) => s.n_dead_tup >= 120);

      const done = (await vacuumDue(db)).filter((d) => /\.(churned|quiet)$/.test(d.table));
      assert.deepEqual(done, [
        { table: 'public.churned', vacuumed: true },
        { table: 'public.quiet', vacuumed: false },
      ]);
      const churned = await statsOf(db, 'churned', (s) => s.vacuum_count >= 2);
      assert.equal(churned.n_dead_tup, 0, 'the dead rows are gone');
      assert.equal(churned.analyze_count, 2, 'analysed with the vacuum');
      const quiet = await statsOf(db, 'quiet', (s) => s.analyze_count >= 2);
      assert.equal(quiet.vacuum_count, 1, 'not vacuumed again');

      // Nothing is due now: a second pass does nothing to these tables.
      assert.deepEqual(
        (await vacuumDue(db)).filter((d) => /\.(churned|quiet)$/.test(d.table)),
        [],
      );
    });
  });
}

/**
 * Index entries the callback dispatcher's claim (claimDue, run as it is, explained) takes from its
 * indexes, as bitmap scans: a bitmap scan counts every entry it takes from an index that no plain
 * index scan has marked dead, where a plain index scan would count only the live rows.
 */
async function claimIndexEntries(db: Db): Promise<number> {
  const plan = await db.tx(async (q) => {
    await q.query('SET LOCAL enable_indexscan = off');
    await q.query('SET LOCAL enable_seqscan = off');
    const lines: string[] = [];
    const explaining: Queryable = {
      ...q,
      async query<R>(sql: string, params?: readonly unknown[]) {
        const { rows } = await q.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${sql}`,
          params,
        );
        lines.push(...rows.map((r) => r['QUERY PLAN']));
        return { rows: [] as R[], rowCount: 0 };
      },
    };
    await claimDue(explaining, new Date(), 50, 30);
    return lines.join('\n');
  });
  const scans = [...plan.matchAll(/Bitmap Index Scan on callback_deliveries\w*[^\n]*rows=([\d.]+)/g)];
  assert.ok(scans.length > 0, `the claim reads the deliveries' indexes:\n${plan}`);
  return scans.reduce((n, m) => n + Number(m[1]), 0);
}

describe('whether the gateway vacuums a database itself', () => {
  const server = (autovacuum: string) => ({
    kind: 'postgres' as const,
    query: async <R>() => ({ rows: [{ autovacuum }] as R[], rowCount: 1 }),
  });
  it('auto: PGlite always, a server only while its own autovacuum is off; on and off regardless', async () => {
    assert.equal(await vacuumsItself(server('off'), 'auto'), true);
    assert.equal(await vacuumsItself(server('on'), 'auto'), false);
    assert.equal(await vacuumsItself(server('on'), 'on'), true);
    assert.equal(await vacuumsItself(server('off'), 'off'), false);
    assert.equal(await vacuumsItself({ kind: 'pglite', query: server('on').query }, 'auto'), true);
    assert.equal(await vacuumsItself({ kind: 'pglite', query: server('on').query }, 'off'), false);
  });

  it('asks the server itself [postgres]', { skip: !BACKENDS.includes('postgres') }, async () => {
    const t = await openTestDb('postgres');
    try {
      const { rows } = await t.db.query<{ on: string }>(`SELECT current_setting('autovacuum') AS on`);
      assert.equal(await vacuumsItself(t.db, 'auto'), rows[0]!.on === 'off');
    } finally {
      await t.drop();
    }
  });
});

for (const backend of BACKENDS) {
  describe(`the database vacuumed by the gateway [${backend}]`, () => {
    const PAYMENTS = 120;
    /** Dead rows autovacuum's rules leave a table of PAYMENTS rows: 50 + 20 %. */
    const LEFT_AT_MOST = 50 + 0.2 * PAYMENTS;
    let rx: Receiver;
    before(async () => {
      rx = await new Receiver().start();
    });
    after(() => rx.stop());

    /** A gateway (`env`, its background jobs running) whose PAYMENTS paid payments were all called back. */
    async function deliveredAll(env: Record<string, string>, logs?: string[]): Promise<TestGateway> {
      const t = await startTestGateway(
        backend,
        { KARIBCHE_CALLBACK_POLL_MS: '50', LOG_LEVEL: 'warn', ...env },
        { background: true, logStream: { write: (l) => void logs?.push(l) } },
      );
      try {
        // On a server whose own autovacuum is on, it leaves this table to the gateway's job.
        if (backend === 'postgres')
          await t.gw.services.db.query('ALTER TABLE callback_deliveries SET (autovacuum_enabled = false)');
        const m = await MerchantClient.create(t, { callbackUrlPrefixes: [new URL(rx.url).origin] });
        for (let i = 0; i < PAYMENTS; i++) await createPaid(t, m, { callbackUrl: rx.url });
        const db = t.gw.services.db;
        await waitUntil(
          `all ${PAYMENTS} callbacks delivered`,
          async () =>
            (
              await db.query<{ n: number }>(
                `SELECT count(*)::int AS n FROM callback_deliveries WHERE status = 'delivered'`,
              )
            ).rows[0]!.n === PAYMENTS,
        );
      } catch (err) {
        await t.close(); // a gateway left running would keep the file's process alive
        throw err;
      }
      return t;
    }

    it('without its vacuum, every delivered callback leaves its old row versions behind', async () => {
      const t = await deliveredAll({ KARIBCHE_VACUUM: 'off' });
      try {
        // Each delivery changed twice (claimed, delivered): two dead versions each, and nothing
        // removes them. (The claim no longer walks their index entries: it marks the ones it meets —
        // src/callbacks/claim.test.ts — but the rows and the entries stay until a vacuum.)
        const stats = await statsOf(t.gw.services.db, 'callback_deliveries', (s) => s.n_dead_tup >= 2 * PAYMENTS);
        assert.equal(stats.vacuum_count, 0, 'never vacuumed');
      } finally {
        await t.close();
      }
    });

    it('its background job vacuums the deliveries: the claim walks no more dead entries than the rules leave', async () => {
      const logs: string[] = [];
      // PGlite by default; a server whatever its own autovacuum (auto would on this one only if it is off).
      const mode = backend === 'pglite' ? 'auto' : 'on';
      const t = await deliveredAll({ KARIBCHE_VACUUM: mode, KARIBCHE_VACUUM_INTERVAL_MS: '100' }, logs);
      try {
        const db = t.gw.services.db;
        // Each delivery changed twice (claimed, delivered): the job vacuums the table whenever its
        // dead rows pass 50 + 20 % of its rows, so at most that many stay, with at most as many
        // entries — once the job has caught up: the statistics it decides by (and statsOf reads)
        // trail the last deliveries on PostgreSQL, whose busy sessions report them later (a CI run
        // saw the claim walk more entries than the rules leave right after a vacuum).
        await statsOf(db, 'callback_deliveries', (s) => s.vacuum_count > 0);
        let entries = -1;
        await waitUntil(
          'the job keeps the dead index entries within the rules',
          async () => (entries = await claimIndexEntries(db)) <= LEFT_AT_MOST,
          30_000,
        ).catch((err: Error) => assert.fail(`${err.message}; the claim walked ${entries}`));
        await statsOf(db, 'callback_deliveries', (s) => s.n_dead_tup <= LEFT_AT_MOST);
        assert.ok(rx.received.length >= PAYMENTS, 'every callback was received');
        // On a server the operator is told once; PGlite has no autovacuum to speak of.
        const told = logs.filter((l) => l.includes('"event":"database.vacuum"'));
        assert.equal(told.length, backend === 'postgres' ? 1 : 0, told.join(''));
      } finally {
        await t.close();
      }
    });
  });
}
