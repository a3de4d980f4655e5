// The LISTEN connection of a PostgreSQL Db ends with the Db, even when close() comes while it is
// still connecting — a gateway stopping as the first event stream opens. Found when a faster run
// of the hostile-input suite left its test process waiting forever on such a connection: before
// the fix, 13 to 14 of these 20 races kept a connection (and the process) open after close().
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { openTestDb, type TestDb } from '../testing/databases.ts';
import { describePostgres } from '../testing/postgres-only.ts';
import { waitUntil } from '../testing/wait.ts';
import { openPostgres } from './postgres.ts';

describePostgres('the LISTEN connection and close() [postgres]', () => {
  let t: TestDb;
  before(async () => {
    t = await openTestDb('postgres');
  });
  after(() => t.drop());

  /** A Db of its own on the test database whose connections carry `name`. */
  function openNamed(name: string) {
    const url = new URL(t.url!);
    url.searchParams.set('application_name', name);
    return openPostgres(url.toString(), { poolSize: 1 });
  }

  /** Connections to the server that carry `name` (each Db below names its own). */
  async function connectionsNamed(name: string): Promise<number> {
    const c = new pg.Client({ connectionString: t.url! });
    await c.connect();
    try {
      const { rows } = await c.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
        [name],
      );
      return rows[0]!.n;
    } finally {
      await c.end();
    }
  }

  it('close() while the listener connects leaves no connection behind (20 races, 0–4 ms apart)', async () => {
    for (let i = 0; i < 20; i++) {
      const name = `listen-race-${process.pid}-${i}`;
      const db = await openNamed(name);
      const listening = db.listen('karibche_listen_race', () => {}).catch((err: unknown) => err);
      await new Promise((r) => setTimeout(r, i % 5));
      await db.close();
      await listening;
      await waitUntil(
        `race ${i}: the Db's connections are gone after close()`,
        async () => (await connectionsNamed(name)) === 0,
        5_000,
      );
    }
  });

  it('two channels asked for at once share one connection, both heard, both ended with the Db', async () => {
    const name = `listen-two-${process.pid}`;
    const db = await openNamed(name);
    const heard: string[] = [];
    await Promise.all([
      db.listen('karibche_listen_a', (p) => heard.push(`a:${p}`)),
      db.listen('karibche_listen_b', (p) => heard.push(`b:${p}`)),
    ]);
    await t.db.query(`SELECT pg_notify('karibche_listen_a', '1'), pg_notify('karibche_listen_b', '2')`);
    await waitUntil('both notifications arrive', () => heard.includes('a:1') && heard.includes('b:2'), 5_000);
    const { rows } = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
      [name],
    );
    assert.equal(rows[0]!.n, 1, 'one LISTEN connection for both channels');
    await db.close();
    await waitUntil('its connections end with the Db', async () => (await connectionsNamed(name)) === 0, 5_000);
  });

  it('a listener connected before close() hears, then ends with the Db', async () => {
    const name = `listen-close-${process.pid}`;
    const db = await openNamed(name);
    const heard: string[] = [];
    await db.listen('karibche_listen_race', (payload) => heard.push(payload));
    await t.db.query(`SELECT pg_notify('karibche_listen_race', 'hello')`);
    await waitUntil('the notification arrives', () => heard.includes('hello'), 5_000);
    assert.ok((await connectionsNamed(name)) >= 1, 'the LISTEN connection is open while the Db is');
    await db.close();
    await waitUntil('the LISTEN connection ends with the Db', async () => (await connectionsNamed(name)) === 0, 5_000);
  });
});
