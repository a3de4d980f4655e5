// The gateway as a real process, the way `npm start` runs it.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { withBase } from './docs/own-address.ts';
import pg from 'pg';
import { freePort } from './testing/browser.ts';
import { openTestDb } from './testing/databases.ts';
import { TEST_ACQUIRER_MODULE } from './testing/harness.ts';
import { describePostgres } from './testing/postgres-only.ts';
import { gatewayArgs, startGatewayProcess } from './testing/process.ts';
import { waitUntil } from './testing/wait.ts';

/** The processes this file started: any still running after a test (one that failed midway) is killed. */
const started: Awaited<ReturnType<typeof startGatewayProcess>>[] = [];
const start = async (env: Record<string, string>, bundle?: string) => {
  const p = await startGatewayProcess(env, { bundle });
  started.push(p);
  return p;
};
afterEach(() => {
  for (const p of started.splice(0))
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
});

describe('the gateway process', () => {
  it('runs as `npm start` does (the built bundle): sandbox on PGlite, admin token and demo merchant written, clean stop and restart', {
    timeout: 300_000,
  }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-main-'));
    const port = await freePort();
    const env = { KARIBCHE_DATA_DIR: dir, PORT: String(port), DATABASE_URL: '', KARIBCHE_ADMIN_TOKEN: '' };
    // Built inside the project (where node_modules is), in a directory of this test's own.
    fs.mkdirSync('.tmp', { recursive: true });
    const dist = fs.mkdtempSync(path.join('.tmp', 'dist-'));
    const bundle = path.join(dist, 'main.mjs');
    execFileSync(process.execPath, ['scripts/build.mjs', dist]);
    try {
      const p = await start(env, bundle);
      assert.match(p.output(), /demo merchant .*\(created now\)/);
      const demo = JSON.parse(fs.readFileSync(path.join(dir, 'demo-merchant.json'), 'utf8'));
      const adminToken = fs.readFileSync(path.join(dir, 'admin-token'), 'utf8').trim();
      assert.equal((fs.statSync(path.join(dir, 'admin-token')).mode & 0o777).toString(8), '600');
      assert.ok(p.output().includes(demo.credentials.clientSecret), 'credentials printed');
      assert.ok(
        p.output().includes(`/dashboard  (${demo.dashboard.email} / ${demo.dashboard.password})`),
        'the dashboard user printed',
      );
      const base = `http://127.0.0.1:${port}`;
      const c = demo.credentials;

      // The demo merchant has everything: split in GEL, USD, saved cards.
      const tok = await (
        await fetch(`${base}/v1/gateway/access-token`, {
          method: 'POST',
          headers: { apikey: c.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
          body: `client_id=${c.clientId}&client_secret=${c.clientSecret}`,
        })
      ).json();
      const headers = {
        apikey: c.apiKey,
        authorization: `Bearer ${tok.access_token}`,
        'content-type': 'application/json',
      };
      for (const body of [
        {
          amount: { currency: 'GEL', total: 20 },
          returnurl: 'http://localhost/r',
          extra: 'GE60KB0000000101904917',
          extra2: '5',
          callbackUrl: 'http://localhost:3000/cb',
        },
        { amount: { currency: 'USD', total: 5 }, returnurl: 'http://localhost/r', saveCard: true },
      ]) {
        const res = await fetch(`${base}/v1/gateway/payments`, { method: 'POST', headers, body: JSON.stringify(body) });
        assert.equal(res.status, 200, await res.clone().text());
        assert.equal((await res.json()).links[1].uri.startsWith(`${base}/checkout/`), true);
      }
      assert.equal(
        (await fetch(`${base}/admin/v1/merchants`, { headers: { authorization: `Bearer ${adminToken}` } })).status,
        200,
      );

      // The bundle carries the checkout's and the dashboard's assets and the migrations (applied above).
      for (const asset of [
        'checkout/assets/checkout.css',
        'dashboard/assets/dashboard.css',
        'dashboard/assets/dashboard.js',
      ]) {
        const res = await fetch(`${base}/${asset}`);
        assert.equal(res.status, 200, asset);
        assert.equal(await res.text(), fs.readFileSync(`src/${asset}`, 'utf8'));
      }
      const signIn = await fetch(`${base}/dashboard/sign-in?lang=en`);
      assert.equal(signIn.status, 200);
      assert.match(await signIn.text(), /<button type="submit" class="primary">Sign in<\/button>/);
      // … and the docs: every Markdown file under docs/, and the docs' stylesheet.
      const guide = await fetch(`${base}/docs/guides/quickstart.md`);
      assert.equal(guide.status, 200);
      assert.equal(await guide.text(), withBase(fs.readFileSync('docs/guides/quickstart.md', 'utf8'), base));
      assert.equal((await fetch(`${base}/docs/assets/docs.css`)).status, 200);

      p.child.kill('SIGTERM');
      assert.equal(await p.exited, 0, p.output());
      assert.match(p.output(), /"msg":"stopped"/);

      // Restart on the same data dir: same admin token and demo merchant, nothing created again.
      const again = await start(env, bundle);
      assert.doesNotMatch(again.output(), /created now/);
      assert.equal(fs.readFileSync(path.join(dir, 'admin-token'), 'utf8').trim(), adminToken);
      assert.equal(
        JSON.parse(fs.readFileSync(path.join(dir, 'demo-merchant.json'), 'utf8')).credentials.clientSecret,
        c.clientSecret,
      );
      assert.deepEqual(
        JSON.parse(fs.readFileSync(path.join(dir, 'demo-merchant.json'), 'utf8')).dashboard,
        demo.dashboard,
      );
      again.child.kill('SIGINT');
      assert.equal(await again.exited, 0, again.output());

      // A restart that lost the credentials file re-issues them, and says so: banner and warn line.
      fs.rmSync(path.join(dir, 'demo-merchant.json'));
      const third = await start(env, bundle);
      assert.match(third.output(), /ROTATED +demoClientSecret issued anew: .*demo-merchant\.json is missing/);
      // Log lines are written apart from the banner (src/logger.ts): wait for the warn line itself.
      await waitUntil('the warn line of the re-issued API key', () =>
        /"level":40,.*"event":"credentials.rotated","credential":"demoApiKey"/.test(third.output()),
      );
      const reissued = JSON.parse(fs.readFileSync(path.join(dir, 'demo-merchant.json'), 'utf8')).credentials;
      assert.notEqual(reissued.clientSecret, c.clientSecret);
      assert.ok(third.output().includes(reissued.clientSecret), 'the new credentials printed');
      third.child.kill('SIGTERM');
      assert.equal(await third.exited, 0, third.output());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });

  it('refuses production mode without an admin token in the environment', { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, gatewayArgs(), {
      env: { ...process.env, KARIBCHE_MODE: 'production', KARIBCHE_ADMIN_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(err, /production mode requires KARIBCHE_ADMIN_TOKEN/);
  });

  it('refuses production mode without a real acquirer connector (never the simulator)', {
    timeout: 120_000,
  }, async () => {
    const child = spawn(process.execPath, gatewayArgs(), {
      env: {
        ...process.env,
        KARIBCHE_MODE: 'production',
        KARIBCHE_ADMIN_TOKEN: 'production-test-admin-token-0123456789',
        KARIBCHE_ACQUIRER_MODULE: '',
        KARIBCHE_DATA_DIR: os.tmpdir(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(err, /production mode requires a real acquirer connector: set KARIBCHE_ACQUIRER_MODULE/);
  });

  describePostgres('on PostgreSQL [postgres]', () => {
    it('runs several worker processes on one port, replaces a dead one, and stops them all [postgres]', {
      timeout: 300_000,
    }, async () => {
      const t = await openTestDb('postgres');
      const port = await freePort();
      const p = await start({
        KARIBCHE_DATA_DIR: t.dataDir,
        PORT: String(port),
        DATABASE_URL: t.url!,
        KARIBCHE_ADMIN_TOKEN: 'workers-test-admin-token-0123456789',
        KARIBCHE_WORKERS: '2',
      });
      const pidsSeen = async (n: number) => {
        const pids = new Set<number>();
        for (let i = 0; i < n; i++) {
          // Refused while no worker is alive (the crash-loop part kills them faster than they start).
          const res = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { connection: 'close' } }).catch(
            () => null,
          );
          if (res) pids.add((await res.json()).pid);
        }
        return pids;
      };
      try {
        // The banner follows the first ready worker; the second may still be starting.
        const waitForTwo = async (without?: number) => {
          let now = await pidsSeen(20);
          const end = Date.now() + 120_000;
          while ((now.size !== 2 || (without !== undefined && now.has(without))) && Date.now() < end) {
            await new Promise((r) => setTimeout(r, 200));
            now = await pidsSeen(20);
          }
          return now;
        };
        assert.match(p.output(), /workers: 2/);
        // The primary writes the start to the log stream too, as the one gateway.started line.
        const started = () =>
          p
            .output()
            .split('\n')
            .filter((l) => l.includes('"event":"gateway.started"'));
        await waitUntil('the gateway.started log line', () => started().length > 0, 30_000);
        assert.equal(started().length, 1, p.output());
        assert.equal(JSON.parse(started()[0]!).workers, 2);
        const first = await waitForTwo();
        assert.equal(first.size, 2, `answered by ${[...first]}`);
        const victim = [...first][0]!;
        process.kill(victim, 'SIGKILL');
        // A connection the primary hands to the worker in the instant it dies is lost (node:cluster
        // round-robin), so ask again only once the primary has seen the exit.
        await waitUntil(
          'the primary logs the death',
          () => p.output().includes(`"event":"worker.exited","workerPid":${victim}`),
          30_000,
          20,
        );
        const replaced = await waitForTwo(victim);
        assert.ok(!replaced.has(victim) && replaced.size === 2, `after the kill: ${[...replaced]}`);
        // A worker that keeps dying is replaced ever more slowly: the fourth death within a minute
        // waits 1 s for its replacement (not a tight restart loop).
        const workerPids = () =>
          fs
            .readFileSync(`/proc/${p.child.pid}/task/${p.child.pid}/children`, 'utf8')
            .trim()
            .split(/\s+/)
            .filter(Boolean)
            .map(Number);
        for (let i = 0; i < 3; i++) {
          const pid = workerPids()[0]!;
          process.kill(pid, 'SIGKILL');
          await waitUntil(`death ${i + 2} logged`, () => p.output().includes(`"workerPid":${pid}`), 30_000, 20);
        }
        const exits = p
          .output()
          .split('\n')
          .filter((l) => l.includes('"event":"worker.exited"'))
          .map((l) => JSON.parse(l) as { restartInMs: number });
        assert.deepEqual(
          exits.map((e) => e.restartInMs),
          [0, 0, 0, 1000],
        );
        const now = await waitForTwo();
        assert.equal(now.size, 2, `after the crash loop: ${[...now]}`);
        p.child.kill('SIGTERM');
        assert.equal(await p.exited, 0, p.output());
        for (const pid of now)
          assert.throws(() => process.kill(pid, 0), 'worker still running after the primary stopped');
      } finally {
        p.child.kill('SIGKILL');
        await t.drop();
      }
    });

    it("stops with the worker's status when no worker can start, instead of replacing them forever [postgres]", {
      timeout: 120_000,
    }, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-main-'));
      const port = await freePort();
      // A database that refuses every connection (nothing listens on port 1 of loopback).
      const child = spawn(
        process.execPath,
        [
          process.env.KARIBCHE_TEST_GATEWAY_BUNDLE ??
            (execFileSync(process.execPath, ['scripts/build.mjs', path.join(dir, 'dist')]),
            path.join(dir, 'dist', 'main.mjs')),
        ],
        {
          env: {
            ...process.env,
            DATABASE_URL: 'postgres://postgres@127.0.0.1:1/refused',
            KARIBCHE_WORKERS: '2',
            KARIBCHE_DATA_DIR: dir,
            PORT: String(port),
            LOG_LEVEL: 'info',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      try {
        const code = await new Promise((resolve) => child.on('exit', resolve));
        assert.equal(code, 1, out);
        assert.match(out, /"event":"worker\.start_failed"/);
        assert.doesNotMatch(out, /"event":"worker\.exited"/, 'no replacement was started');
        assert.match(out, /karibche: failed to start: .*(ECONNREFUSED|database unavailable)/s);
      } finally {
        child.kill('SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('finishes an in-flight request on SIGTERM before exiting [postgres]', { timeout: 300_000 }, async () => {
      const t = await openTestDb('postgres');
      const port = await freePort();
      const adminToken = 'shutdown-test-admin-token-0123456789';
      const p = await start({
        KARIBCHE_DATA_DIR: t.dataDir,
        PORT: String(port),
        DATABASE_URL: t.url!,
        KARIBCHE_ADMIN_TOKEN: adminToken,
        KARIBCHE_MODE: 'production',
        KARIBCHE_ACQUIRER_MODULE: TEST_ACQUIRER_MODULE,
      });
      const locker = new pg.Client({ connectionString: t.url! });
      try {
        const base = `http://127.0.0.1:${port}`;
        const auth = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
        const created = await (
          await fetch(`${base}/admin/v1/merchants`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify({ name: 'Slow' }),
          })
        ).json();
        const id = created.merchant.clientId;
        // Hold the merchant row so the PATCH below is still running when SIGTERM arrives.
        await locker.connect();
        await locker.query('BEGIN');
        await locker.query('SELECT * FROM merchants WHERE client_id = $1 FOR UPDATE', [id]);
        const inFlight = fetch(`${base}/admin/v1/merchants/${id}`, {
          method: 'PATCH',
          headers: auth,
          body: JSON.stringify({ name: 'Renamed' }),
        });
        // The PATCH is in flight once it waits for the row lock held above.
        // (Asked outside the locker's transaction, which would see one snapshot of pg_stat_activity.)
        const waiting = async () =>
          (
            await t.db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          ).rows[0]!.n > 0;
        await waitUntil('the PATCH waits for the row lock', waiting, 30_000);
        p.child.kill('SIGTERM');
        await waitUntil(
          'the gateway begins to shut down',
          () => p.output().includes('shutting down: finishing in-flight requests'),
          30_000,
        );
        assert.equal(p.child.exitCode, null, 'still running while a request is in flight');
        assert.ok(await waiting(), 'the request is still in flight');
        await locker.query('COMMIT');
        const res = await inFlight;
        assert.equal(res.status, 200);
        assert.equal((await res.json()).name, 'Renamed');
        assert.equal(await p.exited, 0, p.output());
      } finally {
        await locker.end().catch(() => {});
        p.child.kill('SIGKILL');
        await t.drop();
      }
    });
  });
});
