// A connection that leads to a standby (read-only): in a replicated cluster, the old primary in the
// seconds after a switchover or failover, before the router stops sending connections there. A
// write there is "database unavailable" (the API's 503 with Retry-After), never a 500, and the
// connection is dropped so the pool's next one reaches the primary. Found by the failover test
// (src/reliability/failover.test.ts): 25006 answered 500 after a switchover.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describePostgres } from '../testing/postgres-only.ts';
import { openTestDb } from '../testing/databases.ts';
import { DatabaseUnavailableError } from './db.ts';
import { openPostgres } from './postgres.ts';

describePostgres('a connection to a standby [postgres]', () => {
  it('answers database unavailable and is dropped, on a query and in a transaction', async () => {
    const t = await openTestDb('postgres');
    // A session whose transactions are read-only, as every one on a standby is.
    const standby = new URL(t.url!);
    standby.searchParams.set('options', '-c default_transaction_read_only=on');
    const db = await openPostgres(standby.toString(), { poolSize: 1 });
    try {
      await t.db.exec('CREATE TABLE ro_probe (n int)');
      const pid = async () => (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const before = await pid();
      await assert.rejects(db.query('INSERT INTO ro_probe VALUES (1)'), DatabaseUnavailableError);
      const afterQuery = await pid();
      assert.notEqual(afterQuery, before, 'the connection that led to a standby was dropped');
      await assert.rejects(db.tx((q) => q.query('INSERT INTO ro_probe VALUES (2)')), DatabaseUnavailableError);
      assert.notEqual(await pid(), afterQuery, 'dropped after a transaction too');
      assert.equal((await t.db.query('SELECT * FROM ro_probe')).rowCount, 0, 'nothing was written');
    } finally {
      await db.close();
      await t.drop();
    }
  });
});
