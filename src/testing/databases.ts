// Test databases: every test file gets its own, on each backend it runs against.
// PGlite: a copy of a prepared, initialised data dir (a fresh initdb takes ~4 s, a copy ~0.4 s).
// PostgreSQL: a throwaway database created on the server and dropped afterwards.
// Asked for `migrated`, either starts from a template that already holds this tree's migrations
// (applying them costs 1–5 s per database on PGlite on a loaded machine, as much as the rest of a
// small test file); the templates are named by a hash of the migrations, so a changed migration
// makes new ones and never serves a stale schema.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Db } from '../store/db.ts';
import { openPglite } from '../store/pglite.ts';
import { openPostgres } from '../store/postgres.ts';
import { migrate } from '../store/migrate.ts';
import { checkHistory, describeViolations } from './history.ts';

export type Backend = 'pglite' | 'postgres';

export const BACKENDS: Backend[] = (process.env.KARIBCHE_TEST_BACKENDS ?? 'pglite,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean) as Backend[];

// Every PostgreSQL connection a test file makes carries its run and the file's name, its gateway
// processes' included (they inherit the environment): scripts/test.mjs counts them per file against
// a budget (the run, so that runs sharing the server are not added up).
if (process.env.NODE_TEST_CONTEXT && !process.env.PGAPPNAME && process.argv[1]) {
  process.env.PGAPPNAME =
    `karibche-test ${process.env.KARIBCHE_TEST_RUN ?? '-'} ${path.relative(process.cwd(), process.argv[1])}`.slice(
      0,
      63,
    );
}

/** Connections of the pool a test database opens (the server's 100 are shared by 3 files at once). */
export const TEST_POOL_SIZE = 5;

export const SERVER_URL = process.env.KARIBCHE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const PGLITE_TEMPLATE = path.resolve(process.env.KARIBCHE_PGLITE_TEMPLATE ?? '.tmp/pglite-template');

/** Creates the PGlite template data dir once (the test runner calls this before the files run). */
export async function preparePgliteTemplate(dir = PGLITE_TEMPLATE): Promise<void> {
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) return;
  const tmp = `${dir}.${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  const db = await openPglite(tmp);
  await db.query('SELECT 1');
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
}

const STORE_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../store');

/**
 * A hash of what decides the migrated schema: the migration files and the store's migrat* modules
 * (the migrator and whatever it reads), so that a template is never reused across a change.
 */
export function migrationsKey(): string {
  const h = createHash('sha256');
  const add = (dir: string, filter: (name: string) => boolean) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (filter(e.name)) add(p, () => true);
      } else if (filter(e.name)) {
        h.update(path.relative(STORE_DIR, p)).update('\0').update(fs.readFileSync(p)).update('\0');
      }
    }
  };
  add(STORE_DIR, (name) => /^migrat/.test(name));
  return h.digest('hex').slice(0, 12);
}

/** The migrated PGlite template of this tree's migrations (beside the initialised one). */
export function pgliteMigratedTemplate(): string {
  return `${PGLITE_TEMPLATE}-migrated-${migrationsKey()}`;
}

/**
 * Creates the migrated PGlite template from the initialised one if it is not there yet. Made in a
 * sibling directory and renamed into place, so a file that races another one, or a run cut short,
 * never sees a half-made template.
 */
export async function preparePgliteMigratedTemplate(dir = pgliteMigratedTemplate()): Promise<string> {
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) return dir;
  await preparePgliteTemplate();
  const tmp = `${dir}.${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.cpSync(PGLITE_TEMPLATE, tmp, { recursive: true });
  const db = await openPglite(tmp);
  await migrate(db);
  await db.close();
  try {
    fs.renameSync(tmp, dir);
  } catch (err) {
    // Another file made it meanwhile: theirs is as good.
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) throw err;
  }
  return dir;
}

/** The migrated template database on the PostgreSQL server for this tree's migrations. */
export function postgresMigratedTemplate(): string {
  return `karibche_template_${migrationsKey()}`;
}

// Any fixed number: serialises the making of the server's template databases between test files.
const TEMPLATE_LOCK = 72_616_935;

/**
 * Creates the migrated template database on the server if it is not there yet: migrated under
 * another name and renamed only when complete (CREATE DATABASE … TEMPLATE refuses a source with
 * a connection open, and must never copy a half-migrated one). Test runs of other trees, with other
 * migrations, have templates of other names beside it.
 */
export async function preparePostgresMigratedTemplate(name = postgresMigratedTemplate()): Promise<string> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rows.length) return name;
    const building = `${name}_${randomBytes(3).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${building}`);
    const url = new URL(SERVER_URL);
    url.pathname = `/${building}`;
    const db = await openPostgres(url.toString(), { poolSize: 1 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    await admin.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    await dropOldTemplates(admin, name);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]).catch(() => {});
    await admin.end();
  }
}

/** Templates of other migration sets kept on the server beside the newest (other checkouts may be on them). */
const OLD_TEMPLATES_KEPT = 3;

/**
 * Each change of the migrations makes a new template (~8 MB): the oldest ones beyond a few are dropped
 * (newest by oid). A template another run is copying right now refuses to drop; it goes next time.
 */
async function dropOldTemplates(admin: pg.Client, current: string): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE 'karibche\\_template\\_%' AND datname <> $1 ORDER BY oid DESC OFFSET $2`,
    [current, OLD_TEMPLATES_KEPT],
  );
  for (const { datname } of rows) {
    try {
      await admin.query(`ALTER DATABASE ${pg.escapeIdentifier(datname)} WITH IS_TEMPLATE false`);
      await admin.query(`DROP DATABASE ${pg.escapeIdentifier(datname)}`);
    } catch {
      // In use by another run: left for the next template change.
    }
  }
}

export interface TestDb {
  db: Db;
  /** For a second process or pool on the same database (PostgreSQL only). */
  url: string | null;
  dataDir: string;
  /** Set by a test that plants a broken history on purpose (the checker's own test). */
  skipHistoryCheck?: boolean;
  drop(): Promise<void>;
}

/**
 * Runs the history checker (history.ts) on a test database before it is dropped: a violation
 * fails the suite that left it. A database that no longer answers (an outage suite stopped it) is
 * reported as not checked, never silently passed.
 */
async function checkBeforeDrop(testDb: TestDb): Promise<void> {
  if (testDb.skipHistoryCheck) return;
  let violations;
  try {
    violations = await checkHistory(testDb.db);
  } catch (e) {
    console.log(
      `[history] not checked (${testDb.url ? 'postgres' : 'pglite'}): the database did not answer: ${(e as Error).message}`,
    );
    return;
  }
  if (violations.length)
    throw new Error(`history check failed with ${violations.length} violation(s):\n${describeViolations(violations)}`);
}

/**
 * A copy of a PGlite template where a gateway keeps its database (`<dataDir>/pglite`): the
 * initialised one, or `migrated` with this tree's migrations already applied. Returns that folder.
 */
export async function seedPgliteDataDir(dataDir: string, opts: { migrated?: boolean } = {}): Promise<string> {
  const template = opts.migrated
    ? await preparePgliteMigratedTemplate()
    : (await preparePgliteTemplate(), PGLITE_TEMPLATE);
  const dir = path.join(dataDir, 'pglite');
  fs.cpSync(template, dir, { recursive: true });
  return dir;
}

/**
 * A new database of its own on `backend`. `migrated`: with this tree's migrations already applied
 * (copied from a template), as every gateway start would apply them; without, empty, for the
 * tests of the migrator and of a first start.
 */
export async function openTestDb(
  backend: Backend,
  opts: { migrated?: boolean; settings?: Record<string, string> } = {},
): Promise<TestDb> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-test-'));
  const settings = Object.entries(opts.settings ?? {});
  if (backend === 'pglite') {
    const db = await openPglite(await seedPgliteDataDir(dataDir, opts));
    // PGlite's one session is every connection there is.
    for (const [name, value] of settings) await db.query(`SET ${name} = ${pg.escapeLiteral(value)}`);
    const testDb: TestDb = {
      db,
      url: null,
      dataDir,
      async drop() {
        try {
          await checkBeforeDrop(testDb);
        } finally {
          await db.close();
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      },
    };
    return testDb;
  }
  const name = `karibche_test_${randomBytes(6).toString('hex')}`;
  const template = opts.migrated ? await preparePostgresMigratedTemplate() : null;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
    // The database's defaults: every connection the pool opens from now on starts with them.
    for (const [setting, value] of settings)
      await admin.query(`ALTER DATABASE ${name} SET ${setting} = ${pg.escapeLiteral(value)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString(), { poolSize: TEST_POOL_SIZE });
  const testDb: TestDb = {
    db,
    url: url.toString(),
    dataDir,
    async drop() {
      try {
        await checkBeforeDrop(testDb);
      } finally {
        await dropServerDatabase();
      }
    },
  };
  return testDb;

  async function dropServerDatabase() {
    await db.close();
    const c = new pg.Client({ connectionString: SERVER_URL });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
