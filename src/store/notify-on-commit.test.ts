// Queryable.notifyOnCommit: this process's listeners hear of work once it is committed — after
// COMMIT in a transaction, at once outside one, never after a rollback — without a server NOTIFY
// (which serialises every notifying transaction's commit: issue 25). And Db.ownPool: connections
// that do not queue behind a saturated shared pool (the callback dispatcher's).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS, openTestDb, type TestDb } from '../testing/databases.ts';
import { describePostgres } from '../testing/postgres-only.ts';
import { openPostgres } from './postgres.ts';

for (const backend of BACKENDS) {
  describe(`notifyOnCommit [${backend}]`, () => {
    let t: TestDb;
    before(async () => {
      t = await openTestDb(backend);
      await t.db.exec('CREATE TABLE probe (n int)');
    });
    after(() => t.drop());

    it('tells the listeners after COMMIT, when the row is visible to another connection', async () => {
      const heard: { payload: string; seen: number }[] = [];
      let resolve!: () => void;
      const seen = new Promise<void>((r) => (resolve = r));
      await t.db.listen('probe_committed', (payload) => {
        // What a dispatcher does on the nudge: read from outside the transaction.
        void t.db
          .query<{ n: number }>('SELECT count(*)::int AS n FROM probe WHERE n = 1')
          .then((r) => heard.push({ payload, seen: r.rows[0]!.n }))
          .then(resolve);
      });
      await t.db.tx(async (q) => {
        await q.query('INSERT INTO probe VALUES (1)');
        q.notifyOnCommit('probe_committed', 'one');
        // Still inside the transaction: nobody has been told yet.
        await new Promise((r) => setTimeout(r, 20));
        assert.equal(heard.length, 0);
      });
      await seen;
      assert.deepEqual(heard, [{ payload: 'one', seen: 1 }]);
    });

    it('tells nobody when the transaction rolls back', async () => {
      const heard: string[] = [];
      await t.db.listen('probe_rolled_back', (p) => heard.push(p));
      await assert.rejects(
        t.db.tx(async (q) => {
          await q.query('INSERT INTO probe VALUES (2)');
          q.notifyOnCommit('probe_rolled_back', 'two');
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(heard, []);
      assert.equal((await t.db.query('SELECT * FROM probe WHERE n = 2')).rowCount, 0);
    });

    it('outside a transaction tells at once (the statement committed when it returned)', async () => {
      const heard: string[] = [];
      await t.db.listen('probe_autocommit', (p) => heard.push(p));
      await t.db.query('INSERT INTO probe VALUES (3)');
      t.db.notifyOnCommit('probe_autocommit', 'three');
      assert.deepEqual(heard, ['three']);
    });
  });
}

describePostgres('notifyOnCommit sends no server NOTIFY [postgres]', () => {
  it('another connection listening on the server hears nothing', async () => {
    const t = await openTestDb('postgres');
    const other = await openPostgres(t.url!, { poolSize: 1 });
    try {
      const heardElsewhere: string[] = [];
      await other.listen('probe_local', (p) => heardElsewhere.push(p));
      const heardHere: string[] = [];
      await t.db.listen('probe_local', (p) => heardHere.push(p));
      await t.db.tx(async (q) => q.notifyOnCommit('probe_local', 'local'));
      // A server notification sent now still reaches the other process: it would have heard one.
      await t.db.notify('probe_local', 'server');
      // Both listening connections hear it, each when the server gets to it: wait for both (waiting
      // for the other one alone failed once, this side's copy not yet read).
      for (let i = 0; i < 100 && (heardElsewhere.length === 0 || heardHere.length < 2); i++)
        await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(heardElsewhere, ['server']);
      assert.deepEqual(heardHere.sort(), ['local', 'server']);
    } finally {
      await other.close();
      await t.drop();
    }
  });
});

describePostgres('ownPool [postgres]', () => {
  it('answers while every connection of the shared pool is held', async () => {
    const t = await openTestDb('postgres');
    const db = await openPostgres(t.url!, { poolSize: 1 });
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const holder = db.tx(async (q) => {
        await q.query('SELECT 1');
        await held;
      });
      // The shared pool's one connection is busy: a query there waits for it…
      let sharedAnswered = false;
      const shared = db.query('SELECT 1').then(() => (sharedAnswered = true));
      // …while the own pool answers.
      const own = db.ownPool(1);
      const { rows } = await own.query<{ n: number }>('SELECT 2 AS n');
      assert.equal(rows[0]!.n, 2);
      assert.equal(sharedAnswered, false, 'the shared pool was still busy');
      release();
      await holder;
      await shared;
    } finally {
      await db.close();
      await t.drop();
    }
  });
});
