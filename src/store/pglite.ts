import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { firstFailure, heldUntilCommit, type Db, type Notification, type Queryable, type QueryResult } from './db.ts';
import { DurableNodeFS } from './pglite-durable-fs.ts';
import { statementRunner } from './pglite-statements.ts';

/**
 * Server settings of the embedded PostgreSQL (docs/performance.md has the measurements). initdb
 * sizes shared_buffers for a server (128 MB, which PGlite's WebAssembly memory then holds: the
 * gateway's peak RSS was 819–950 MB under the bench); PGlite reads and writes its files through
 * Node's fs, so the operating system's page cache keeps what falls out of a small buffer pool.
 */
export const PGLITE_SETTINGS = [
  'shared_buffers=16MB',
  'wal_buffers=1MB',
  'temp_buffers=2MB',
  'work_mem=2MB',
  'maintenance_work_mem=16MB',
  // ANALYZE samples 300 rows per unit of target (src/store/vacuum.ts runs it): at the default 100,
  // 30,000 payment rows at once raised the create load's peak RSS from 244 to 263–273 MB, which
  // PGlite's memory keeps; at 10, 240 MB. The gateway's statements are lookups by key and partial
  // indexes, whose plans do not hang on a histogram's detail.
  'default_statistics_target=10',
];

/**
 * PGlite's WebAssembly runs as V8's baseline (Liftoff) code only. By default V8 also recompiles
 * the hot functions with its optimising compiler in background threads; for PGlite that cost
 * 40–90 MB of resident memory that stays, and CPU while it runs, for 5–10% less CPU per insert
 * once done (measured: 197–218 vs 213–231 µs per insert after 40,000; 229–245 vs 264–272 µs
 * over the first 20,000, where tiering up is still under way). Set when the first PGlite opens,
 * before its module compiles; Node allows V8 flags to change at run time.
 */
function baselineWasmOnly(): void {
  v8.setFlagsFromString('--liftoff-only');
}

/**
 * Commits are durable (pglite-durable-fs.ts): PGlite's default start parameters turn fsync off
 * (-F), and the WAL's default sync, fdatasync, is a no-op under Emscripten; last, so that no
 * setting can undo them.
 */
const DURABLE = ['-c', 'fsync=on', '-c', 'wal_sync_method=fsync'];

export interface PgliteOptions {
  /** name=value server settings; default PGLITE_SETTINGS. */
  settings?: readonly string[];
}

type Run = <R>(sql: string, params?: readonly unknown[]) => Promise<QueryResult<R>>;

function wrap(
  q: Pick<PGlite, 'exec'>,
  run: Run,
  notifyOnCommit: (channel: string, payload: string) => void,
): Queryable {
  return {
    notifyOnCommit,
    async exec(sql: string) {
      await q.exec(sql);
    },
    query: run,
  };
}

// What the child runs: PGlite.create on an empty directory runs initdb there, then closes.
const INIT_SCRIPT = `const [url, dir, initArgs] = JSON.parse(process.argv[1]);
const { PGlite } = await import(url);
const db = await PGlite.create(dir, { initDbStartParams: initArgs });
await db.close();`;

/**
 * Creates a new data dir in a short-lived child process. PGlite's initdb runs two more PostgreSQL
 * instances beside the one that stays (measured: 700–930 MB peak RSS for ~4 s); in the gateway's
 * own process that peak would stay its high-water mark and much of it resident. The child writes
 * into a sibling directory that is renamed into place, so a start cut short leaves no half-made
 * data dir behind.
 */
async function initInChild(dataDir: string, settings: readonly string[]): Promise<void> {
  const tmp = `${dataDir.replace(/\/+$/, '')}.init-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const initArgs = settings.flatMap((s) => ['-c', s]);
  try {
    await promisify(execFile)(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        INIT_SCRIPT,
        JSON.stringify([import.meta.resolve('@electric-sql/pglite'), tmp, initArgs]),
      ],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    const e = err as { stderr?: string; message: string };
    throw new Error(`initialising the PGlite data dir ${dataDir} failed: ${e.stderr || e.message}`);
  }
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  fs.rmSync(dataDir, { recursive: true, force: true }); // empty: it had no PG_VERSION
  // initdb ran with fsync off, as PGlite runs it: synced here, as PostgreSQL's own initdb syncs
  // the data dir before it returns, so that the first commits do not rest on unsynced files.
  syncTree(tmp);
  fs.renameSync(tmp, dataDir);
  syncTree(path.dirname(dataDir), false);
}

/** fsyncs every file and directory under `dir` (or only the directory itself). */
function syncTree(dir: string, deep = true): void {
  if (deep)
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) syncTree(p);
      else if (e.isFile()) syncFile(p);
    }
  syncFile(dir);
}

function syncFile(p: string): void {
  const fd = fs.openSync(p, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The embedded database. PGlite is one connection in this process: its transactions serialise,
 * which makes every row lock trivially held. LISTEN/NOTIFY is PGlite's own, so notifications sent
 * by SQL (triggers, pg_notify) arrive like they do from a PostgreSQL server.
 */
export async function openPglite(dataDir: string | undefined, opts: PgliteOptions = {}): Promise<Db> {
  const settings = opts.settings ?? PGLITE_SETTINGS;
  if (dataDir && !fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0)
      throw new Error(`${dataDir} is not empty and holds no PostgreSQL data dir (no PG_VERSION)`);
    await initInChild(dataDir, settings);
  }
  baselineWasmOnly();
  // Given at every start too: a data dir made before these settings keeps its postgresql.conf.
  // On disk, each sync PostgreSQL asks for reaches the disk (pglite-durable-fs.ts); in memory, none.
  // PGlite starts PostgreSQL with -F (fsync off): turned on again last, whatever the settings say.
  const pg = await PGlite.create({
    ...(dataDir ? { fs: new DurableNodeFS(dataDir) } : {}),
    startParams: [...PGlite.defaultStartParams, ...settings.flatMap((s) => ['-c', s]), ...DURABLE],
  });
  const listeners = new Map<string, Set<Notification>>();
  let closed = false;
  /** This process's listeners of `channel` (the only process on PGlite). */
  const tell = (channel: string, payload: string) => {
    if (!closed) for (const fn of listeners.get(channel) ?? []) fn(payload);
  };
  const statement = statementRunner(pg, tell);
  const open = () => {
    if (pg.closed) throw new Error('PGlite is closed');
  };
  // Inside a transaction, which holds PGlite's transaction lock: the query lock, as PGlite's own
  // transaction queries take it. Alone: both locks. Not PGlite's syncToFs after it, which its
  // query() calls: that copies an in-memory file system to a browser's store (IndexedDB, OPFS)
  // and is a no-op for a data dir on disk, or in memory — 55–60 µs a call behind PGlite's lock,
  // 3.5 calls a lifecycle, ~4 % of the gateway's thread under the lifecycle. On disk, the commit
  // itself is synced to the WAL before the statement returns (pglite-durable-fs.ts).
  const inTransaction: Run = <R>(sql: string, params?: readonly unknown[]) =>
    pg._runExclusiveQuery(() => {
      open();
      return statement<R>(sql, params);
    });
  const alone: Run = <R>(sql: string, params?: readonly unknown[]) =>
    pg._runExclusiveTransaction(() =>
      pg._runExclusiveQuery(() => {
        open();
        return statement<R>(sql, params);
      }),
    );
  const base = wrap(pg, alone, tell);
  const tx: Db['tx'] = async (fn) => {
    const notes = heldUntilCommit(tell);
    const result = await pg.transaction((tx) => fn(wrap(tx, inTransaction, notes.notifyOnCommit)));
    notes.tellAll();
    return result;
  };
  // In process, nothing to pipeline: PGlite runs them one after the other in one transaction.
  const batch: Db['batch'] = (send) => tx((q) => firstFailure(send(q)));
  const together: Db['together'] = async (send) => void (await Promise.allSettled(send(base)));
  return {
    kind: 'pglite',
    query: base.query,
    exec: base.exec,
    notifyOnCommit: tell,
    // One connection: a pool of its own is the same one.
    ownPool: () => ({ ...base, tx, batch, together }),
    tx,
    batch,
    together,
    async listen(channel, onMessage) {
      let set = listeners.get(channel);
      if (!set) {
        listeners.set(channel, (set = new Set()));
        const subscribers = set;
        await pg.listen(channel, (payload) => {
          if (!closed) for (const fn of subscribers) fn(payload);
        });
      }
      set.add(onMessage);
    },
    async notify(channel, payload) {
      await alone('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async close() {
      closed = true;
      listeners.clear();
      await pg.close();
    },
  };
}
