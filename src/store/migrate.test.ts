import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openPostgres } from './postgres.ts';
import { listMigrations, migrate } from './migrate.ts';
import { BACKENDS, openTestDb } from '../testing/databases.ts';
import { describePostgres } from '../testing/postgres-only.ts';

describe('migrations', () => {
  for (const backend of BACKENDS) {
    it(`apply once and are idempotent [${backend}]`, async () => {
      const t = await openTestDb(backend);
      try {
        assert.deepEqual(await migrate(t.db), listMigrations().map((m) => m.name));
        assert.deepEqual(await migrate(t.db), []);
        const { rows } = await t.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
        assert.deepEqual(rows.map((r) => r.version), listMigrations().map((m) => m.version));
      } finally {
        await t.drop();
      }
    });
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

    it('roll back a failing migration completely [postgres]', async () => {
      const t = await openTestDb('postgres');
      try {
        const bad = [...listMigrations(), { version: 999, name: '999_bad.sql', sql: 'CREATE TABLE half_done (x int); SELECT no_such_function();' }];
        await assert.rejects(migrate(t.db, bad));
        const { rows } = await t.db.query(`SELECT to_regclass('merchants') AS m, to_regclass('half_done') AS h`);
        assert.deepEqual(rows[0], { m: null, h: null });
      } finally {
        await t.drop();
      }
    });
  });
});
