// The schema's migrations: SQL files numbered 001, 002, … with no gap, applied in that order once
// each, so that every database built by this code — fresh or years old — has the same schema. A
// database whose applied history is not a prefix of that sequence is refused (migration-history.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';
import { advisoryXactLock } from './locks.ts';
import {
  type AppliedMigration,
  type Renumbered,
  carryOverLegacyNumbering,
  refuseUnlessPrefix,
} from './migration-history.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any fixed number: the advisory lock that serialises migrations between gateway processes.
const MIGRATION_LOCK = 72_616_934;
/** `NNN_words.sql`: three digits, then lower-case words joined by underscores. */
const FILE_NAME = /^(\d{3})_[a-z0-9]+(?:_[a-z0-9]+)*\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * What is wrong with a list of migration file names as a sequence (empty when nothing is): each
 * name must be `NNN_words.sql` and the numbers must run 001, 002, … in order, each used once. A
 * new file with any other number would be applied before older ones on a fresh database and after
 * them on an existing one: two schemas from one code.
 */
export function sequenceProblems(names: readonly string[]): string[] {
  const problems: string[] = [];
  names.forEach((name, i) => {
    const m = FILE_NAME.exec(name);
    if (!m)
      problems.push(`${name}: a migration's name is NNN_words.sql (three digits, lower-case words joined by "_")`);
    else if (Number(m[1]) !== i + 1)
      problems.push(
        `${name}: expected number ${String(i + 1).padStart(3, '0')} (the next after ${names[i - 1] ?? 'none'}): numbers run 001, 002, … without a gap or a repeat`,
      );
  });
  return problems;
}

export function checkSequence(names: readonly string[]): void {
  const problems = sequenceProblems(names);
  if (problems.length) throw new Error(`the migrations are not one gapless sequence:\n  ${problems.join('\n  ')}`);
}

/** The migrations of a directory: every .sql file in it, checked to be one gapless sequence. */
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  checkSequence(files);
  return files.map((f) => ({
    version: Number(f.slice(0, 3)),
    name: f,
    sql: fs.readFileSync(path.join(dir, f), 'utf8'),
  }));
}

export interface MigrateOptions {
  /** Told the rows of an old-numbered history that were rewritten to the current numbering. */
  onRenumbered?: (renumbered: Renumbered[]) => void;
}

/**
 * Applies pending migrations in one transaction under a transaction-scoped advisory lock, so
 * concurrent starts wait for each other and either all pending files apply or none. In the same
 * transaction, before anything is applied: a history recorded in the numbering before the sequence
 * was made gapless is rewritten to it (once: the rewritten rows are the record), and a history that
 * is not a prefix of the sequence is refused with a MigrationHistoryError, leaving it untouched.
 */
export async function migrate(db: Db, migrations = listMigrations(), opts: MigrateOptions = {}): Promise<string[]> {
  checkSequence(migrations.map((m) => m.name));
  const { applied, renumbered } = await db.tx(
    async (q) => {
      await advisoryXactLock(q, MIGRATION_LOCK);
      await q.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      const recorded = (await q.query<AppliedMigration>('SELECT version, name FROM schema_migrations ORDER BY version'))
        .rows;
      const { applied: history, renumbered } = await carryOverLegacyNumbering(q, recorded);
      refuseUnlessPrefix(history, migrations);
      const pending = migrations.slice(history.length);
      for (const m of pending) {
        await q.exec(m.sql);
        await q.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      }
      return { applied: pending.map((m) => m.name), renumbered };
    },
    { patient: true },
  );
  // Told once committed: a rolled-back renumbering did not happen.
  if (renumbered.length) opts.onRenumbered?.(renumbered);
  return applied;
}
