// Test databases: every test file gets its own, on each backend it runs against.
// PGlite: a copy of a prepared, initialised data dir (a fresh initdb takes ~4 s, a copy ~0.4 s).
// PostgreSQL: a throwaway database created on the server and dropped afterwards.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Db } from '../store/db.ts';
import { openPglite } from '../store/pglite.ts';
import { openPostgres } from '../store/postgres.ts';
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
  process.env.PGAPPNAME = `karibche-test ${process.env.KARIBCHE_TEST_RUN ?? '-'} ${path.relative(process.cwd(), process.argv[1])}`.slice(0, 63);
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
    console.log(`[history] not checked (${testDb.url ? 'postgres' : 'pglite'}): the database did not answer: ${(e as Error).message}`);
    return;
  }
  if (violations.length) throw new Error(`history check failed with ${violations.length} violation(s):\n${describeViolations(violations)}`);
}

export async function openTestDb(backend: Backend): Promise<TestDb> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-test-'));
  if (backend === 'pglite') {
    await preparePgliteTemplate();
    const dir = path.join(dataDir, 'pglite');
    fs.cpSync(PGLITE_TEMPLATE, dir, { recursive: true });
    const db = await openPglite(dir);
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
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
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
