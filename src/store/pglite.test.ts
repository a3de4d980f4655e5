// The embedded database's own start: a new data dir is made by initdb in a child process (its
// memory peak stays out of the gateway's), with the memory settings of PGLITE_SETTINGS.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../config.ts';
import { seedPgliteDataDir } from '../testing/databases.ts';
import { openDatabase } from './open.ts';
import { PGLITE_SETTINGS, openPglite } from './pglite.ts';

const setting = async (db: Awaited<ReturnType<typeof openPglite>>, name: string) =>
  (
    await db.query<{ setting: string; unit: string | null }>('SELECT setting, unit FROM pg_settings WHERE name = $1', [
      name,
    ])
  ).rows[0]!;

describe('PGlite data dir and settings', () => {
  it('initialises a new data dir in a child process, with the memory settings in its postgresql.conf, and reopens it', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-pglite-'));
    const dir = path.join(root, 'pglite');
    try {
      // Every file initdb made is synced to disk before the database opens (initdb ran with fsync off).
      const synced = new Set<string>();
      const fsync = fs.fsyncSync;
      fs.fsyncSync = (fd) => {
        synced.add(path.basename(fs.readlinkSync(`/proc/self/fd/${fd}`)));
        fsync(fd);
      };
      let db = await openPglite(dir).finally(() => {
        fs.fsyncSync = fsync;
      });
      try {
        assert.ok(fs.existsSync(path.join(dir, 'PG_VERSION')));
        for (const f of ['PG_VERSION', 'postgresql.conf', 'pg_control'])
          assert.ok(synced.has(f), `${f} synced once initdb made it`);
        assert.ok(synced.size > 100, `${synced.size} files synced`);
        assert.deepEqual(
          fs.readdirSync(root),
          ['pglite'],
          'the child worked in a sibling dir that was renamed into place',
        );
        const conf = fs.readFileSync(path.join(dir, 'postgresql.conf'), 'utf8');
        for (const s of PGLITE_SETTINGS) {
          const [name, value] = s.split('=') as [string, string];
          assert.match(conf, new RegExp(`^${name} = ${value}\\b`, 'm'), `${name} in postgresql.conf`);
        }
        // 16MB in 8 kB pages.
        assert.deepEqual(await setting(db, 'shared_buffers'), { setting: '2048', unit: '8kB' });
        await db.exec('CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)');
      } finally {
        await db.close();
      }
      db = await openPglite(dir);
      try {
        assert.deepEqual((await db.query('SELECT n FROM kept')).rows, [{ n: 7 }]);
      } finally {
        await db.close();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('takes other settings from KARIBCHE_PGLITE_SETTINGS, also on a data dir made with the defaults', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-pglite-'));
    try {
      // A data dir made with the defaults: a copy of the test run's template, which openPglite made
      // with them (the initdb in a child process is the first test's subject, ~5 s of CPU).
      await seedPgliteDataDir(dataDir);
      const db = await openDatabase(
        loadConfig({ KARIBCHE_DATA_DIR: dataDir, KARIBCHE_PGLITE_SETTINGS: 'shared_buffers=32MB, work_mem=8MB' }),
      );
      try {
        assert.deepEqual(await setting(db, 'shared_buffers'), { setting: '4096', unit: '8kB' });
        assert.deepEqual(await setting(db, 'work_mem'), { setting: '8192', unit: 'kB' });
      } finally {
        await db.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a directory that has files but no data dir, and leaves it as it was', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-pglite-'));
    try {
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
      await assert.rejects(openPglite(dir), /not empty and holds no PostgreSQL data dir/);
      assert.deepEqual(fs.readdirSync(dir), ['notes.txt']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
