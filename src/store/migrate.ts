import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any fixed number: the advisory lock that serialises migrations between gateway processes.
const MIGRATION_LOCK = 72_616_934;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d+_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.split('_')[0]), name: f, sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

/**
 * Applies pending migrations in one transaction under a transaction-scoped advisory lock, so
 * concurrent starts wait for each other and either all pending files apply or none.
 */
export async function migrate(db: Db, migrations = listMigrations()): Promise<string[]> {
  return db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await q.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await q.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await q.exec(m.sql);
      await q.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.name);
    }
    return applied;
  }, { patient: true });
}
