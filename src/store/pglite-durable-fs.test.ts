// Durable commits on PGlite (pglite-durable-fs.ts): every commit of the embedded database, alone,
// in a transaction or a batch, is synced to its WAL on disk before it is acknowledged — PGlite's
// defaults synced nothing, ever — and no setting turns that off.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { seedPgliteDataDir } from '../testing/databases.ts';
import type { Db } from './db.ts';
import { openPglite } from './pglite.ts';

/** The files fsynced while `fn` runs (paths within the data dir), as often as each was. */
async function syncedDuring(dataDir: string, fn: () => Promise<unknown>): Promise<string[]> {
  const original = fs.fsyncSync;
  const synced: string[] = [];
  fs.fsyncSync = (fd) => {
    synced.push(path.relative(dataDir, fs.readlinkSync(`/proc/self/fd/${fd}`)));
    original(fd);
  };
  try {
    await fn();
  } finally {
    fs.fsyncSync = original;
  }
  return synced;
}

const walSyncs = (files: string[]) => files.filter((f) => f.startsWith(`pg_wal${path.sep}`)).length;

describe('durable commits on PGlite', () => {
  let root: string;
  let dataDir: string;
  let db: Db;
  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-durable-'));
    dataDir = await seedPgliteDataDir(root);
    // fsync=off asked for: refused, the commits stay durable.
    db = await openPglite(dataDir, { settings: ['shared_buffers=16MB', 'fsync=off'] });
    await db.query('CREATE TABLE paid (n int PRIMARY KEY)');
  });
  after(async () => {
    await db.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('runs PostgreSQL with fsync on and the WAL synced by fsync, whatever the settings ask', async () => {
    const { rows } = await db.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'wal_sync_method') ORDER BY name`,
    );
    assert.deepEqual(rows, [
      { name: 'fsync', setting: 'on' },
      { name: 'wal_sync_method', setting: 'fsync' },
    ]);
  });

  it('syncs the WAL to disk at every commit: a statement alone, a transaction, a batch', async () => {
    let n = 0;
    const commits: [string, () => Promise<unknown>][] = [
      ['alone', () => db.query('INSERT INTO paid VALUES ($1)', [++n])],
      [
        'transaction',
        () =>
          db.tx(async (q) => {
            await q.query('INSERT INTO paid VALUES ($1)', [++n]);
            await q.query('UPDATE paid SET n = n + 100 WHERE n = $1', [n]);
          }),
      ],
      [
        'batch',
        () =>
          db.batch((q) => [
            q.query('INSERT INTO paid VALUES ($1)', [++n]),
            q.query('INSERT INTO paid VALUES ($1)', [++n]),
          ]),
      ],
    ];
    for (const [what, commit] of commits) {
      const synced = await syncedDuring(dataDir, commit);
      assert.ok(walSyncs(synced) >= 1, `${what}: the WAL synced (files synced: ${synced.join(', ') || 'none'})`);
    }
  });

  it('syncs nothing for a read', async () => {
    const synced = await syncedDuring(dataDir, () => db.query('SELECT count(*) FROM paid WHERE n > $1', [0]));
    assert.equal(walSyncs(synced), 0);
  });
});
