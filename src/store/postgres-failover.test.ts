// What a replicated cluster's failover looks like to the gateway's pool, each answered "database
// unavailable" (the API's 503 with Retry-After), never a 500 or a hang:
// - a connection that leads to a standby (read-only): the old primary in the seconds after a
//   switchover, before the router stops sending connections there — the connection is dropped so
//   the pool's next one reaches the primary (found by the failover test: 25006 answered 500);
// - a statement that goes unanswered (a primary cut off, a COMMIT held by synchronous replication
//   with no standby attached): it fails after KARIBCHE_DB_QUERY_TIMEOUT_MS and its connection is
//   dropped (found by the failover test: an answer took 26 s) — except in a `patient` transaction
//   (migrations, bootstrap), whose advisory locks may rightly wait;
// - a connection cut mid-statement without a word from the server (the router shutting the sessions
//   of a primary it marked down): the statement fails, the process lives on (found by the failover
//   test: every gateway died of an unhandled 'error' event on a checked-out connection).
import assert from 'node:assert/strict';
import net from 'node:net';
import { it } from 'node:test';
import { describePostgres } from '../testing/postgres-only.ts';
import { openTestDb } from '../testing/databases.ts';
import { DatabaseUnavailableError } from './db.ts';
import { openPostgres } from './postgres.ts';

describePostgres('the pool across a failover [postgres]', () => {
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
      await assert.rejects(
        db.tx((q) => q.query('INSERT INTO ro_probe VALUES (2)')),
        DatabaseUnavailableError,
      );
      assert.notEqual(await pid(), afterQuery, 'dropped after a transaction too');
      assert.equal((await t.db.query('SELECT * FROM ro_probe')).rowCount, 0, 'nothing was written');
    } finally {
      await db.close();
      await t.drop();
    }
  });

  it('a statement unanswered past the deadline is database unavailable and its connection dropped; a patient transaction waits', async () => {
    const t = await openTestDb('postgres');
    const db = await openPostgres(t.url!, { poolSize: 1, queryTimeoutMs: 1_000 });
    try {
      const pid = async () => (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const before = await pid();
      const started = Date.now();
      await assert.rejects(db.query('SELECT pg_sleep(3)'), DatabaseUnavailableError);
      assert.ok(
        Date.now() - started < 2_500,
        `answered after ${Date.now() - started} ms, not when the statement ended`,
      );
      const afterQuery = await pid();
      assert.notEqual(afterQuery, before, 'the busy connection was dropped, not reused');
      await assert.rejects(
        db.tx((q) => q.query('SELECT pg_sleep(3)')),
        DatabaseUnavailableError,
      );
      assert.notEqual(await pid(), afterQuery, 'dropped after a transaction too');
      assert.deepEqual(
        await db.tx(async (q) => (await q.query('SELECT pg_sleep(1.5)'), 'waited'), { patient: true }),
        'waited',
      );
    } finally {
      await db.close();
      await t.drop();
    }
  });

  it('a connection cut mid-statement (no word from the server) fails the statement, not the process', async () => {
    const t = await openTestDb('postgres');
    // A TCP proxy in front of PostgreSQL that the test can cut, as HAProxy's shutdown-sessions does.
    const target = new URL(t.url!);
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      const server = net.connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, server]) {
        sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(server).pipe(client);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const via = new URL(t.url!);
    via.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    const db = await openPostgres(via.toString(), { poolSize: 2 });
    try {
      for (const statement of [
        () => db.query('SELECT pg_sleep(5)'),
        () => db.tx((q) => q.query('SELECT pg_sleep(5)')),
      ]) {
        const running = statement();
        await new Promise((r) => setTimeout(r, 300));
        for (const s of sockets) s.destroy();
        await assert.rejects(running, DatabaseUnavailableError);
      }
      assert.equal((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one, 1, 'the pool connects anew');
    } finally {
      await db.close();
      proxy.close();
      await t.drop();
    }
  });
});

/**
 * A PostgreSQL server, as far as a new connection sees it, that says it is ready and in the same
 * packet ends the session (FATAL 57P01) — a primary shutting down in a failover as the pool connects.
 */
async function serverThatEndsWhenReady(): Promise<{ url: string; close: () => Promise<void> }> {
  const message = (type: string, body: Buffer) => {
    const head = Buffer.alloc(5);
    head.write(type, 0, 'latin1');
    head.writeInt32BE(body.length + 4, 1);
    return Buffer.concat([head, body]);
  };
  const int32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  const fields = ['SFATAL', 'VFATAL', 'C57P01', 'Mterminating connection due to administrator command'];
  const fatal = message('E', Buffer.from(`${fields.join('\0')}\0\0`, 'latin1'));
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      // AuthenticationOk, BackendKeyData, ReadyForQuery, then the FATAL error: one write, one packet.
      socket.end(
        Buffer.concat([
          message('R', int32(0)),
          message('K', Buffer.concat([int32(4242), int32(1)])),
          message('Z', Buffer.from('I')),
          fatal,
        ]),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `postgres://karibche@127.0.0.1:${port}/gone`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

it('a connection the server ends as soon as it is ready fails the caller, not the process (found by the failover suite: a gateway died of it)', async () => {
  const server = await serverThatEndsWhenReady();
  try {
    // The pool hands the connection over and the error arrives before the caller's own listener
    // is attached: without a listener of the pool's client class, an unhandled 'error' event.
    await assert.rejects(openPostgres(server.url, { poolSize: 1 }), DatabaseUnavailableError);
  } finally {
    await server.close();
  }
});
