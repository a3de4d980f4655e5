import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Db } from './db.ts';
import { openPostgres } from './postgres.ts';
import { listMigrations, migrate, sequenceProblems } from './migrate.ts';
import { historyProblem, MigrationHistoryError, type Renumbered } from './migration-history.ts';
import { BACKENDS, openTestDb, type Backend, type TestDb } from '../testing/databases.ts';
import { describePostgres } from '../testing/postgres-only.ts';
import { dumpSchema, type SchemaDump } from '../testing/schema-dump.ts';

// The migrations directory as it stood before issue 27 (commit 5c4b76a): the names, in the order
// the old migrator applied them, that a database it migrated has in schema_migrations.
const OLD_NUMBERING = [
  '001_init.sql',
  '002_checkout.sql',
  '003_callbacks.sql',
  '004_operations.sql',
  '005_idempotency_link.sql',
  '006_state_machine.sql',
  '007_idempotency_recovery_points.sql',
  '008_callback_backlog.sql',
  '009_sim_operations.sql',
  '030_payment_search.sql',
  '031_callback_problems.sql',
  '032_request_log.sql',
  '060_bank_profile.sql',
  '061_sandbox_outcomes.sql',
  '062_callback_conformance.sql',
  '070_dashboard.sql',
  '090_event_feed.sql',
  '091_idempotency_work.sql',
  '100_merchant_clock.sql',
];
const oldUpTo = (last: string) => OLD_NUMBERING.slice(0, OLD_NUMBERING.indexOf(last) + 1);
const words = (name: string) => name.slice(4);

/** What the old migrator did: each file's SQL, recorded under the file's old number and name. */
async function migrateTheOldWay(db: Db, oldNames: readonly string[]): Promise<void> {
  const files = listMigrations();
  await db.tx(async (q) => {
    await q.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    for (const old of oldNames) {
      const file = files.find((f) => words(f.name) === words(old));
      assert.ok(file, `no migration file now for ${old}`);
      await q.exec(file.sql);
      await q.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [Number(old.slice(0, 3)), old]);
    }
  });
}

const history = async (db: Db) =>
  (
    await db.query<{ version: number; name: string; applied_at: Date }>(
      'SELECT version, name, applied_at FROM schema_migrations ORDER BY version',
    )
  ).rows;
const sequence = () => listMigrations().map((m) => ({ version: m.version, name: m.name }));
const versionAndName = (rows: { version: number; name: string }[]) =>
  rows.map((r) => ({ version: r.version, name: r.name }));

async function withDb(backend: Backend, fn: (t: TestDb) => Promise<void>): Promise<void> {
  const t = await openTestDb(backend);
  try {
    await fn(t);
  } finally {
    await t.drop();
  }
}

/** migrate() refuses the database with a message matching `message`, and leaves it as it was. */
async function assertRefused(db: Db, message: RegExp): Promise<void> {
  const before = { history: await history(db), schema: await dumpSchema(db) };
  await assert.rejects(migrate(db), (e: unknown) => {
    assert.ok(e instanceof MigrationHistoryError, String(e));
    assert.match(e.message, message);
    assert.match(e.message, /Nothing was changed\.$/);
    return true;
  });
  assert.deepEqual({ history: await history(db), schema: await dumpSchema(db) }, before);
}

describe('the migration files', () => {
  it('are one gapless sequence 001, 002, … named NNN_words.sql', () => {
    const files = fs.readdirSync(path.join(import.meta.dirname, 'migrations')).sort();
    assert.deepEqual(sequenceProblems(files), []);
    assert.deepEqual(
      listMigrations().map((m) => m.version),
      files.map((_, i) => i + 1),
    );
  });

  it('a file numbered other than the next one, a repeated number or a bad name is a problem', () => {
    assert.deepEqual(sequenceProblems(['001_a.sql', '002_b.sql']), []);
    const [gap] = sequenceProblems(['001_a.sql', '003_b.sql']);
    assert.match(gap!, /^003_b\.sql: expected number 002 \(the next after 001_a\.sql\)/);
    const [repeat] = sequenceProblems(['001_a.sql', '002_b.sql', '002_c.sql']);
    assert.match(repeat!, /^002_c\.sql: expected number 003/);
    for (const bad of ['2_b.sql', '002-b.sql', '002_Big.sql', '002_.sql', '0002_b.sql']) {
      const problems = sequenceProblems(['001_a.sql', bad]);
      assert.equal(problems.length, 1, bad);
      assert.match(problems[0]!, /a migration's name is NNN_words\.sql/, bad);
    }
  });

  it('a directory that is not one sequence is not listed (the gateway does not start with it)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-migrations-'));
    try {
      fs.writeFileSync(path.join(dir, '001_first.sql'), 'SELECT 1;');
      fs.writeFileSync(path.join(dir, '010_later.sql'), 'SELECT 1;');
      assert.throws(() => listMigrations(dir), /not one gapless sequence:\n {2}010_later\.sql: expected number 002/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a history that is not a prefix of the sequence', () => {
  const seq = [
    { version: 1, name: '001_a.sql' },
    { version: 2, name: '002_b.sql' },
    { version: 3, name: '003_c.sql' },
  ];
  it('is named by what is wrong with it', () => {
    assert.equal(historyProblem([], seq), null);
    assert.equal(historyProblem(seq.slice(0, 2), seq), null);
    assert.equal(historyProblem(seq, seq), null);
    assert.match(
      historyProblem([seq[0]!, seq[2]!], seq)!,
      /gap: 002_b\.sql is not applied but the later 003_c\.sql is/,
    );
    assert.match(
      historyProblem([seq[0]!, { version: 2, name: '002_other.sql' }], seq)!,
      /records version 2 as 002_other\.sql, but this code's migration 2 is 002_b\.sql/,
    );
    assert.match(
      historyProblem([...seq, { version: 4, name: '004_d.sql' }], seq)!,
      /004_d\.sql, which this code does not know \(it knows 001 to 003_c\.sql\): the code is older than the database/,
    );
    assert.match(
      historyProblem([{ version: 0, name: '000_zero.sql' }, ...seq], seq)!,
      /000_zero\.sql as version 0, which is no migration's number/,
    );
  });
});

describe('migrations', () => {
  for (const backend of BACKENDS) {
    it(`a fresh database gets 001, 002, … in order, once [${backend}]`, () =>
      withDb(backend, async (t) => {
        const renumbered: Renumbered[][] = [];
        assert.deepEqual(
          await migrate(t.db, undefined, { onRenumbered: (r) => renumbered.push(r) }),
          listMigrations().map((m) => m.name),
        );
        assert.deepEqual(await migrate(t.db), []);
        assert.deepEqual(versionAndName(await history(t.db)), sequence());
        assert.deepEqual(renumbered, []);
      }));

    it(`two migrators at once on one database apply each migration once [${backend}]`, () =>
      withDb(backend, async (t) => {
        const results = await Promise.all([migrate(t.db), migrate(t.db)]);
        assert.deepEqual(results.map((r) => r.length).sort(), [0, listMigrations().length]);
        assert.deepEqual(versionAndName(await history(t.db)), sequence());
      }));

    describe(`a database migrated in the old numbering is carried over, then completed [${backend}]`, () => {
      let fresh: SchemaDump;
      it('(the fresh schema to compare with)', () =>
        withDb(backend, async (t) => {
          await migrate(t.db);
          fresh = await dumpSchema(t.db);
          assert.ok(fresh.columns.length > 0 && Object.keys(fresh.rows).includes('payment_transitions'));
        }));

      // 008: a point the repository passed through; 009: where the two numberings still agree;
      // 062: inside the old ranges; 100: fully migrated.
      for (const last of [
        '008_callback_backlog.sql',
        '009_sim_operations.sql',
        '062_callback_conformance.sql',
        '100_merchant_clock.sql',
      ]) {
        it(`migrated up to ${last}`, () =>
          withDb(backend, async (t) => {
            const old = oldUpTo(last);
            await migrateTheOldWay(t.db, old);
            const before = await history(t.db);
            const renumbered: Renumbered[][] = [];
            const applied = await migrate(t.db, undefined, { onRenumbered: (r) => renumbered.push(r) });
            assert.deepEqual(
              applied,
              listMigrations()
                .slice(old.length)
                .map((m) => m.name),
            );
            const after = await history(t.db);
            assert.deepEqual(versionAndName(after), sequence());
            // The rows it had keep their dates: the history is renumbered, not rewritten.
            assert.deepEqual(
              after.slice(0, old.length).map((r) => r.applied_at),
              before.map((r) => r.applied_at),
            );
            const moved = old.filter((n) => Number(n.slice(0, 3)) > 9);
            assert.deepEqual(
              renumbered,
              moved.length
                ? [
                    moved.map((from) => ({
                      from,
                      to: listMigrations().find((m) => words(m.name) === words(from))!.name,
                    })),
                  ]
                : [],
            );
            assert.deepEqual(await dumpSchema(t.db), fresh);
            // Carried over once: the next start finds nothing to renumber or apply.
            assert.deepEqual(await migrate(t.db, undefined, { onRenumbered: (r) => renumbered.push(r) }), []);
            assert.equal(renumbered.length, moved.length ? 1 : 0);
          }));
      }
    });

    describe(`a database whose history is not a prefix is refused, unchanged [${backend}]`, () => {
      const names = listMigrations().map((m) => m.name);
      // One database migrated up to 012 for the cases below, each of which changes its history
      // and puts it back: refused, the database is as it was and nothing after 012 was applied.
      let t: TestDb;
      before(async () => {
        t = await openTestDb(backend);
        await migrate(t.db, listMigrations().slice(0, 12));
      });
      after(() => t.drop());
      async function refusedWith(change: string, undo: string, message: RegExp) {
        await t.db.query(change);
        try {
          await assertRefused(t.db, message);
          assert.equal(
            (await t.db.query(`SELECT to_regclass('dashboard_users') AS r`)).rows[0]!.r,
            null,
            'nothing later applied',
          );
        } finally {
          await t.db.query(undo);
        }
      }

      it('a gap', () =>
        refusedWith(
          'DELETE FROM schema_migrations WHERE version = 5',
          `INSERT INTO schema_migrations (version, name) VALUES (5, '${names[4]}')`,
          new RegExp(`gap: ${names[4]} is not applied but the later ${names[5]} is`),
        ));

      it('a name that does not match the file', () =>
        refusedWith(
          `UPDATE schema_migrations SET name = '012_something_else.sql' WHERE version = 12`,
          `UPDATE schema_migrations SET name = '${names[11]}' WHERE version = 12`,
          new RegExp(`records version 12 as 012_something_else\\.sql, but this code's migration 12 is ${names[11]}`),
        ));

      it('a migration newer than the code: the code is older than the database', () => {
        const future = names.length + 1;
        return refusedWith(
          `INSERT INTO schema_migrations (version, name) VALUES (${future}, '${String(future).padStart(3, '0')}_from_the_future.sql')`,
          `DELETE FROM schema_migrations WHERE version = ${future}`,
          new RegExp(
            `_from_the_future\\.sql, which this code does not know \\(it knows 001 to ${names.at(-1)}\\): the code is older than the database`,
          ),
        );
      });

      it('an unknown version', () =>
        refusedWith(
          `INSERT INTO schema_migrations (version, name) VALUES (0, '000_before_all.sql')`,
          'DELETE FROM schema_migrations WHERE version = 0',
          /000_before_all\.sql as version 0, which is no migration's number/,
        ));

      it('a history in both numberings', () =>
        refusedWith(
          `INSERT INTO schema_migrations (version, name) VALUES (30, '030_payment_search.sql')`,
          'DELETE FROM schema_migrations WHERE version = 30',
          /030_payment_search\.sql is recorded in the numbering before 2026-11-27 while version 10 is recorded too/,
        ));

      it('after all these, the same database migrates', async () => {
        assert.deepEqual(await migrate(t.db), names.slice(12));
      });
    });

    it(`an old-numbered history with a gap is refused, not even renumbered [${backend}]`, () =>
      withDb(backend, async (t) => {
        const names = listMigrations().map((m) => m.name);
        await migrateTheOldWay(t.db, [...oldUpTo('008_callback_backlog.sql'), '030_payment_search.sql']);
        await assertRefused(t.db, new RegExp(`gap: ${names[8]} is not applied but the later ${names[9]} is`));
        assert.ok(
          (await history(t.db)).some((r) => r.name === '030_payment_search.sql'),
          'still in the old numbering',
        );
      }));
  }

  describePostgres('on a PostgreSQL server [postgres]', () => {
    it('serialise concurrent starts under the advisory lock [postgres]', async () => {
      const t = await openTestDb('postgres');
      const pools = await Promise.all([1, 2, 3, 4].map(() => openPostgres(t.url!, { poolSize: 2 })));
      try {
        const results = await Promise.all(pools.map((db) => migrate(db)));
        assert.equal(results.filter((r) => r.length > 0).length, 1, JSON.stringify(results));
        const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
        assert.equal(rows[0]!.n, listMigrations().length);
      } finally {
        await Promise.all(pools.map((p) => p.close()));
        await t.drop();
      }
    });

    it('carry an old-numbered database over once when several processes start at once [postgres]', async () => {
      const t = await openTestDb('postgres');
      const pools = await Promise.all([1, 2, 3, 4].map(() => openPostgres(t.url!, { poolSize: 2 })));
      try {
        await migrateTheOldWay(t.db, oldUpTo('062_callback_conformance.sql'));
        const renumbered: Renumbered[][] = [];
        const results = await Promise.all(
          pools.map((db) => migrate(db, undefined, { onRenumbered: (r) => renumbered.push(r) })),
        );
        assert.equal(results.filter((r) => r.length > 0).length, 1, JSON.stringify(results));
        assert.equal(renumbered.length, 1);
        assert.deepEqual(versionAndName(await history(t.db)), sequence());
      } finally {
        await Promise.all(pools.map((p) => p.close()));
        await t.drop();
      }
    });

    it('roll back a failing migration completely [postgres]', async () => {
      const t = await openTestDb('postgres');
      try {
        const next = listMigrations().length + 1;
        const bad = [
          ...listMigrations(),
          {
            version: next,
            name: `${String(next).padStart(3, '0')}_bad.sql`,
            sql: 'CREATE TABLE half_done (x int); SELECT no_such_function();',
          },
        ];
        await assert.rejects(migrate(t.db, bad), /no_such_function/);
        const { rows } = await t.db.query(`SELECT to_regclass('merchants') AS m, to_regclass('half_done') AS h`);
        assert.deepEqual(rows[0], { m: null, h: null });
      } finally {
        await t.drop();
      }
    });
  });
});
