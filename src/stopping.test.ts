// Every way of stopping the gateway stops it within the limit, whatever happened to the log
// destination: a stdout nobody reads any more (the pipe is full), a stdout or stderr whose reader has
// gone (EPIPE), SIGTERM to `npm start` itself (npm → sh → node), and a cluster of workers (whose
// primary must also outlive a worker's death with nobody reading what it says).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { freePort } from './testing/browser.ts';
import { openTestDb, seedPgliteDataDir } from './testing/databases.ts';
import { processAlive } from './testing/process-alive.ts';
import { describePostgres } from './testing/postgres-only.ts';
import { gatewayArgs } from './testing/process.ts';

const LIMIT_MS = 15_000;
/** A deadline for starting that only a hang misses (a start through tsx on a saturated machine took over 60 s). */
const START_WITHIN_MS = 180_000;

type Pipe = 'read' | 'unread' | 'closed';

/**
 * Starts src/main.ts (PGlite in a temp data dir unless env says otherwise) with its stdout not read
 * (the pipe fills up) or closed by us (every write gets EPIPE), and its stderr read or closed, from
 * the first byte; resolves once it answers /healthz.
 */
async function startGateway(
  port: number,
  pipes: { stdout: Pipe; stderr?: Pipe },
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-stop-'));
  // PGlite already made and migrated (a copy of the suite's template): the start's initdb and
  // migrations (seconds of CPU each) are not what this file tests, stopping is.
  if (!env.DATABASE_URL) await seedPgliteDataDir(dir, { migrated: true });
  const child = spawn(process.execPath, gatewayArgs(), {
    env: {
      ...process.env,
      KARIBCHE_DATA_DIR: dir,
      PORT: String(port),
      DATABASE_URL: '',
      KARIBCHE_ADMIN_TOKEN: '',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (pipes.stdout === 'closed') child.stdout!.destroy();
  else if (pipes.stdout === 'unread') child.stdout!.pause();
  else child.stdout!.resume();
  let err = '';
  if (pipes.stderr === 'closed') child.stderr!.destroy();
  else child.stderr!.on('data', (d) => (err += d));
  const started = Date.now();
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return child;
    if (child.exitCode !== null) throw new Error(`gateway exited (${child.exitCode}): ${err}`);
    if (Date.now() - started > START_WITHIN_MS) throw new Error(`gateway did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Enough requests that their log lines overflow any pipe buffer (each request logs ~0.5 KB). */
async function flood(port: number, n: number): Promise<void> {
  const one = () =>
    fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.text(),
      () => '',
    );
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: 50 }, one));
}

async function stopsWithin(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<{ ms: number; code: number | null }> {
  const exited = new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code)),
  );
  const t0 = Date.now();
  child.kill(signal);
  // The deadline's timer is cleared once the process exits: left pending, the last one kept this
  // file's process alive 25 s after its last test.
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), LIMIT_MS + 10_000)));
  const code = await Promise.race([exited, hung]).finally(() => clearTimeout(timer));
  if (code === 'hung') {
    child.kill('SIGKILL');
    assert.fail(`still running ${LIMIT_MS + 10_000} ms after ${signal}`);
  }
  return { ms: Date.now() - t0, code };
}

const PIPES: { stdout: Pipe; stderr?: Pipe }[] = [
  { stdout: 'unread' },
  { stdout: 'closed' },
  { stdout: 'read', stderr: 'closed' },
];
const said = (p: { stdout: Pipe; stderr?: Pipe }) =>
  p.stderr === 'closed'
    ? 'its stderr is closed by the reader (EPIPE)'
    : p.stdout === 'unread'
      ? 'its stdout is no longer read (full pipe)'
      : 'its stdout is closed by the reader (EPIPE)';

/** The worker pids answering /healthz once `n` distinct ones (none of them `gone`) have answered. */
async function workers(port: number, n: number, gone?: number): Promise<Set<number>> {
  const seen = new Set<number>();
  const end = Date.now() + START_WITHIN_MS;
  while (seen.size < n) {
    if (Date.now() > end) assert.fail(`only workers ${[...seen]} answered in ${START_WITHIN_MS} ms`);
    const body = await fetch(`http://127.0.0.1:${port}/healthz`, {
      headers: { connection: 'close' },
      signal: AbortSignal.timeout(2_000),
    }).then(
      (r) => r.json() as Promise<{ pid: number }>,
      () => null,
    );
    if (body && body.pid !== gone) seen.add(body.pid);
    else await new Promise((r) => setTimeout(r, 100));
  }
  return seen;
}

describe('stopping the gateway process', () => {
  for (const pipes of PIPES) {
    it(`SIGTERM stops it within ${LIMIT_MS / 1000} s when ${said(pipes)}`, { timeout: 300_000 }, async () => {
      const port = await freePort();
      const child = await startGateway(port, pipes);
      await flood(port, 1_500);
      const { ms, code } = await stopsWithin(child);
      console.log(`[stopping] one process, ${said(pipes)}: exit ${code} ${ms} ms after SIGTERM`);
      assert.ok(ms < LIMIT_MS, `took ${ms} ms`);
      assert.equal(code, 0, 'a clean stop');
    });
  }

  it('SIGTERM to `npm start` stops the gateway itself (npm → sh → node), within the limit', {
    timeout: 300_000,
  }, async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-npm-start-'));
    const npm = spawn('npm', ['start', '--silent'], {
      env: {
        ...process.env,
        KARIBCHE_DATA_DIR: dir,
        PORT: String(port),
        DATABASE_URL: '',
        KARIBCHE_ADMIN_TOKEN: '',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    npm.stderr!.on('data', (d) => (err += d));
    const started = Date.now();
    while (!err.includes(' gateway on ')) {
      if (npm.exitCode !== null) assert.fail(`npm start exited: ${err}`);
      if (Date.now() - started > START_WITHIN_MS) assert.fail(`npm start did not start: ${err}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const { pid } = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { pid: number };
    assert.notEqual(pid, npm.pid, 'the gateway runs in its own node process under npm');
    const t0 = Date.now();
    await stopsWithin(npm);
    // npm has exited; the gateway must be gone too, not orphaned and still serving.
    while (processAlive(pid) && Date.now() - t0 < LIMIT_MS) await new Promise((r) => setTimeout(r, 100));
    const left = processAlive(pid);
    if (left) process.kill(pid, 'SIGKILL');
    assert.equal(left, false, `the gateway (pid ${pid}) still runs after npm start got SIGTERM`);
  });
});

describePostgres('stopping a cluster (KARIBCHE_WORKERS=2) [postgres]', () => {
  for (const pipes of PIPES) {
    it(`outlives a worker's death and stops with all its workers within ${LIMIT_MS / 1000} s when ${said(pipes)}`, {
      timeout: 400_000,
    }, async () => {
      const t = await openTestDb('postgres', { migrated: true });
      const port = await freePort();
      const child = await startGateway(port, pipes, {
        DATABASE_URL: t.url!,
        KARIBCHE_DATA_DIR: t.dataDir,
        KARIBCHE_WORKERS: '2',
        KARIBCHE_DB_POOL: '4',
      });
      try {
        const first = await workers(port, 2);
        await flood(port, 1_000);
        // The primary tells of the death and forks a replacement, with nobody reading what it says.
        const victim = [...first][0]!;
        process.kill(victim, 'SIGKILL');
        const now = await workers(port, 2, victim);
        assert.equal(child.exitCode, null, 'the primary is still running');
        await flood(port, 500);
        const { ms, code } = await stopsWithin(child);
        console.log(`[stopping] cluster of 2 workers, ${said(pipes)}: exit ${code} ${ms} ms after SIGTERM`);
        assert.ok(ms < LIMIT_MS, `took ${ms} ms`);
        assert.equal(code, 0, 'a clean stop');
        for (const pid of now)
          assert.equal(processAlive(pid), false, `worker ${pid} still runs after the primary stopped`);
      } finally {
        child.kill('SIGKILL');
        await t.drop();
      }
    });
  }
});
