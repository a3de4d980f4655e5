// The gateway as a real process, the way `npm start` runs it.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { BACKENDS, openTestDb } from './testing/databases.ts';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function start(env: Record<string, string>): Promise<Proc> {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  // The banner comes last in both modes (in a cluster, after a worker reports ready).
  while (!out.includes(' gateway on ')) {
    if (child.exitCode !== null) throw new Error(`gateway exited: ${out}`);
    if (Date.now() > deadline) throw new Error(`gateway did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: () => out, exited };
}

describe('the gateway process', () => {
  it('starts in sandbox mode on PGlite, writes the admin token and demo merchant, stops cleanly and restarts', { timeout: 90_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-main-'));
    const port = await freePort();
    const env = { KARIBCHE_DATA_DIR: dir, PORT: String(port), DATABASE_URL: '', KARIBCHE_ADMIN_TOKEN: '' };
    try {
      const p = await start(env);
      assert.match(p.output(), /demo merchant .*\(created now\)/);
      const demo = JSON.parse(fs.readFileSync(path.join(dir, 'demo-merchant.json'), 'utf8'));
      const adminToken = fs.readFileSync(path.join(dir, 'admin-token'), 'utf8').trim();
      assert.equal((fs.statSync(path.join(dir, 'admin-token')).mode & 0o777).toString(8), '600');
      assert.ok(p.output().includes(demo.credentials.clientSecret), 'credentials printed');
      const base = `http://127.0.0.1:${port}`;
      const c = demo.credentials;

      // The demo merchant has everything: split in GEL, USD, saved cards.
      const tok = await (await fetch(`${base}/v1/gateway/access-token`, { method: 'POST', headers: { apikey: c.apiKey, 'content-type': 'application/x-www-form-urlencoded' }, body: `client_id=${c.clientId}&client_secret=${c.clientSecret}` })).json();
      const headers = { apikey: c.apiKey, authorization: `Bearer ${tok.access_token}`, 'content-type': 'application/json' };
      for (const body of [
        { amount: { currency: 'GEL', total: 20 }, returnurl: 'http://localhost/r', extra: 'GE60KB0000000101904917', extra2: '5', callbackUrl: 'http://localhost:3000/cb' },
        { amount: { currency: 'USD', total: 5 }, returnurl: 'http://localhost/r', saveCard: true },
      ]) {
        const res = await fetch(`${base}/v1/gateway/payments`, { method: 'POST', headers, body: JSON.stringify(body) });
        assert.equal(res.status, 200, await res.clone().text());
        assert.equal((await res.json()).links[1].uri.startsWith(`${base}/checkout/`), true);
      }
      assert.equal((await fetch(`${base}/admin/v1/merchants`, { headers: { authorization: `Bearer ${adminToken}` } })).status, 200);

      p.child.kill('SIGTERM');
      assert.equal(await p.exited, 0, p.output());
      assert.match(p.output(), /"msg":"stopped"/);

      // Restart on the same data dir: same admin token and demo merchant, nothing created again.
      const again = await start(env);
      assert.doesNotMatch(again.output(), /created now/);
      assert.equal(fs.readFileSync(path.join(dir, 'admin-token'), 'utf8').trim(), adminToken);
      assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'demo-merchant.json'), 'utf8')).credentials.clientSecret, c.clientSecret);
      again.child.kill('SIGINT');
      assert.equal(await again.exited, 0, again.output());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses production mode without an admin token in the environment', { timeout: 30_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, KARIBCHE_MODE: 'production', KARIBCHE_ADMIN_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(err, /production mode requires KARIBCHE_ADMIN_TOKEN/);
  });

  if (BACKENDS.includes('postgres')) {
    it('runs several worker processes on one port, replaces a dead one, and stops them all [postgres]', { timeout: 90_000 }, async () => {
      const t = await openTestDb('postgres');
      const port = await freePort();
      const p = await start({ KARIBCHE_DATA_DIR: t.dataDir, PORT: String(port), DATABASE_URL: t.url!, KARIBCHE_ADMIN_TOKEN: 'workers-test-admin-token-0123456789', KARIBCHE_WORKERS: '2' });
      const pidsSeen = async (n: number) => {
        const pids = new Set<number>();
        for (let i = 0; i < n; i++) pids.add((await (await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { connection: 'close' } })).json()).pid);
        return pids;
      };
      try {
        assert.match(p.output(), /workers: 2/);
        const first = await pidsSeen(40);
        assert.equal(first.size, 2, `answered by ${[...first]}`);
        const victim = [...first][0]!;
        process.kill(victim, 'SIGKILL');
        let now = first;
        const end = Date.now() + 20_000;
        while ((now.has(victim) || now.size < 2) && Date.now() < end) {
          await new Promise((r) => setTimeout(r, 200));
          now = await pidsSeen(20);
        }
        assert.ok(!now.has(victim) && now.size === 2, `after the kill: ${[...now]}`);
        p.child.kill('SIGTERM');
        assert.equal(await p.exited, 0, p.output());
        for (const pid of now) assert.throws(() => process.kill(pid, 0), 'worker still running after the primary stopped');
      } finally {
        p.child.kill('SIGKILL');
        await t.drop();
      }
    });

    it('finishes an in-flight request on SIGTERM before exiting [postgres]', { timeout: 90_000 }, async () => {
      const t = await openTestDb('postgres');
      const port = await freePort();
      const adminToken = 'shutdown-test-admin-token-0123456789';
      const p = await start({ KARIBCHE_DATA_DIR: t.dataDir, PORT: String(port), DATABASE_URL: t.url!, KARIBCHE_ADMIN_TOKEN: adminToken, KARIBCHE_MODE: 'production' });
      const locker = new pg.Client({ connectionString: t.url! });
      try {
        const base = `http://127.0.0.1:${port}`;
        const auth = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
        const created = await (await fetch(`${base}/admin/v1/merchants`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Slow' }) })).json();
        const id = created.merchant.clientId;
        // Hold the merchant row so the PATCH below is still running when SIGTERM arrives.
        await locker.connect();
        await locker.query('BEGIN');
        await locker.query('SELECT * FROM merchants WHERE client_id = $1 FOR UPDATE', [id]);
        const inFlight = fetch(`${base}/admin/v1/merchants/${id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ name: 'Renamed' }) });
        await new Promise((r) => setTimeout(r, 300));
        p.child.kill('SIGTERM');
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(p.child.exitCode, null, 'still running while a request is in flight');
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
  }
});
