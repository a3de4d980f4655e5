// Reads asked together share a connection and a write (issue 25): a relay between the pool and
// PostgreSQL counts what the client sends. Each read is its own statement: its caller gets its own
// rows, a read that fails fails alone, and without a database each fails as unavailable.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describePostgres } from '../testing/postgres-only.ts';
import { openTestDb } from '../testing/databases.ts';
import { MerchantClient, basicPayment, startTestGateway } from '../testing/harness.ts';
import { onTestPostgres } from '../testing/wire-relay.ts';
import { DatabaseUnavailableError } from './db.ts';
import { SharedReads } from './shared-reads.ts';

describePostgres('shared reads on the wire [postgres]', () => {
  it('sends 32 reads asked in one turn in one write on one connection, each answered with its own rows', async () => {
    await onTestPostgres({ wire: true }, async (db, relayed) => {
      const wire = relayed!;
      await db.exec('CREATE TABLE shared_reads (n int PRIMARY KEY, label text NOT NULL)');
      await db.exec("INSERT INTO shared_reads SELECT g, 'n' || g FROM generate_series(1, 40) g");
      const reads = new SharedReads(db.ownPool(1), { concurrency: 1, maxBatch: 64 });
      const read = (n: number) =>
        reads.query<{ label: string; pid: number }>(
          'SELECT label, pg_backend_pid() AS pid FROM shared_reads WHERE n = $1',
          [n],
        );
      await read(0); // the connection opened and the statement prepared
      wire.count(true);
      const ns = Array.from({ length: 32 }, (_, i) => i + 1);
      const answers = await Promise.all(ns.map(read));
      wire.count(false);
      assert.deepEqual(
        answers.map((a) => a.rows[0]!.label),
        ns.map((n) => `n${n}`),
      );
      assert.equal(new Set(answers.map((a) => a.rows[0]!.pid)).size, 1, 'one connection');
      // One write (the relay may read it in two pieces); one per statement would be 32.
      assert.ok(wire.writes() <= 2, `the client wrote ${wire.writes()} times for 32 reads`);
      assert.deepEqual(reads.sent, { batches: 2, statements: 33 });
    });
  });

  it('fails a read the database refuses alone; the reads sent with it get their rows', async () => {
    await onTestPostgres({ wire: false }, async (db) => {
      const reads = new SharedReads(db.ownPool(1), { concurrency: 1, maxBatch: 64 });
      const sql = 'SELECT 100 / $1::int AS q';
      const answers = await Promise.allSettled([5, 0, 4, 0, 2].map((d) => reads.query<{ q: number }>(sql, [d])));
      assert.deepEqual(
        answers.map((a) => (a.status === 'fulfilled' ? a.value.rows[0]!.q : String(a.reason.message))),
        [20, 'division by zero', 25, 'division by zero', 50],
      );
      assert.equal(reads.sent.batches, 1, 'sent together');
      // The connection goes on serving reads.
      assert.deepEqual((await reads.query(sql, [10])).rows, [{ q: 10 }]);
    });
  });

  it('serves a merchant’s GET through the gateway’s shared reads, counted in /metrics', async () => {
    const t = await startTestGateway('postgres');
    try {
      const m = await MerchantClient.create(t);
      const payId = (await m.createPayment(basicPayment())).json().payId as string;
      const counted = async () => {
        const text = (await t.app.inject('/metrics')).body;
        const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1]);
        return [value('karibche_shared_reads_batches_total'), value('karibche_shared_reads_statements_total')];
      };
      const [batches, statements] = await counted();
      const answers = await Promise.all([1, 2, 3].map(() => m.getPayment(payId)));
      for (const a of answers) assert.equal(a.json().payId, payId);
      const [batchesAfter, statementsAfter] = await counted();
      assert.equal(statementsAfter! - statements!, 3, 'three reads');
      assert.ok(batchesAfter! - batches! >= 1 && batchesAfter! - batches! <= 3, `${batchesAfter! - batches!} batches`);
    } finally {
      await t.close();
    }
  });

  it('fails each read as unavailable when the database cannot be reached', async () => {
    await onTestPostgres({ wire: true }, async (db, relayed) => {
      const reads = new SharedReads(db.ownPool(1), { concurrency: 1, maxBatch: 64 });
      assert.deepEqual((await reads.query('SELECT $1::int AS one', [1])).rows, [{ one: 1 }]);
      await relayed!.close(); // the connection cut, and no new one to be had
      const answers = await Promise.allSettled([1, 2, 3].map((n) => reads.query('SELECT $1::int AS n', [n])));
      for (const a of answers) {
        assert.equal(a.status, 'rejected');
        assert.ok(a.reason instanceof DatabaseUnavailableError, `${a.reason}`);
      }
    });
  });
});

it('runs statements together on PGlite, each settled on its own', async () => {
  const t = await openTestDb('pglite');
  try {
    const answers: unknown[] = [];
    await t.db.together((q) =>
      [1, 0, 2].map((d) =>
        q.query<{ q: number }>('SELECT 10 / $1::int AS q', [d]).then(
          (r) => answers.push(r.rows[0]!.q),
          (err: Error) => answers.push(err.message),
        ),
      ),
    );
    assert.deepEqual(answers, [10, 'division by zero', 5]);
  } finally {
    await t.drop();
  }
});
