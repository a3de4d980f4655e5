// `node --import tsx bench/profile.ts [--lifecycle]`: CPU-profiles one gateway process on PostgreSQL
// under the create-payment load (or, with --lifecycle, 32 customers creating and paying through the
// simulate endpoint with a callback to a local receiver) and prints the functions with the most
// self time.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort } from './run.ts';

const SERVER_URL = process.env.KARIBCHE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const name = `karibche_prof_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: SERVER_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(SERVER_URL);
url.pathname = `/${name}`;
const profDir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-prof-'));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-prof-data-'));
const port = await freePort();
const token = `prof-admin-${randomBytes(8).toString('hex')}`;
execFileSync(process.execPath, ['scripts/build.mjs']);
const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profDir}`, 'dist/main.mjs'], {
  // Its own data dir: a profile never touches ./data of a sandbox in this checkout.
  env: {
    ...process.env,
    DATABASE_URL: url.toString(),
    PORT: String(port),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    KARIBCHE_ADMIN_TOKEN: token,
    KARIBCHE_WORKERS: '1',
    KARIBCHE_DATA_DIR: dataDir,
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
child.stdout!.on('data', (d) => (out += d));
child.stderr!.on('data', (d) => (out += d)); // the banner is on stderr
while (!out.includes('gateway on')) {
  if (child.exitCode !== null) throw new Error(`gateway exited: ${out}`);
  await new Promise((r) => setTimeout(r, 50));
}
const base = `http://127.0.0.1:${port}`;
const created = await (
  await fetch(`${base}/admin/v1/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'P', callbackUrlPrefixes: ['http://127.0.0.1:*'] }),
  })
).json();
const c = created.credentials;
const tok = await (
  await fetch(`${base}/v1/gateway/access-token`, {
    method: 'POST',
    headers: { apikey: c.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: c.clientId, client_secret: c.clientSecret }),
  })
).json();
const seconds = Number(process.env.PROFILE_SECONDS ?? 8);
let done = 0;
const merchant = { apikey: c.apiKey, authorization: `Bearer ${tok.access_token}`, 'content-type': 'application/json' };
if (process.argv.includes('--lifecycle')) {
  let callbacks = 0;
  const rx = http
    .createServer((req, res) => req.resume().on('end', () => (callbacks++, res.end('ok'))))
    .listen(0, '127.0.0.1');
  await new Promise((r) => rx.once('listening', r));
  const callbackUrl = `http://127.0.0.1:${(rx.address() as { port: number }).port}/cb`;
  const body = JSON.stringify({
    amount: { currency: 'GEL', total: '10.00' },
    returnurl: 'https://shop.example/r',
    callbackUrl,
  });
  const adminHeaders = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let paid = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (Date.now() < end) {
        const { payId } = (await (
          await fetch(`${base}/v1/gateway/payments`, { method: 'POST', headers: merchant, body })
        ).json()) as { payId: string };
        const res = await fetch(`${base}/sandbox/v1/payments/${payId}/simulate`, {
          method: 'POST',
          headers: adminHeaders,
          body: '{"card":"4111111111111111"}',
        });
        await res.arrayBuffer();
        if (res.status === 200) paid++;
      }
    }),
  );
  await new Promise((r) => setTimeout(r, 1_000));
  console.log(
    `lifecycle: ${Math.round(paid / seconds)} payments/s created and paid, ${callbacks} of ${paid} callbacks received`,
  );
  done = paid;
  rx.close();
} else {
  const r = await autocannon({
    url: `${base}/v1/gateway/payments`,
    method: 'POST',
    connections: 64,
    duration: seconds,
    headers: merchant,
    body: JSON.stringify({ amount: { currency: 'GEL', total: '25.40' }, returnurl: 'https://shop.example/return' }),
  });
  console.log(
    `create-payment ${Math.round(r.requests.average)} req/s p50 ${r.latency.p50} p99 ${r.latency.p99} non2xx ${r.non2xx}`,
  );
  done = r.requests.total;
}
await new Promise<void>((resolve) => {
  child.on('exit', () => resolve());
  child.kill('SIGTERM');
});
fs.rmSync(dataDir, { recursive: true, force: true });
await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
await admin.end();

const file = fs.readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))!;
const prof = JSON.parse(fs.readFileSync(path.join(profDir, file), 'utf8'));
const self = new Map<string, number>();
const dt = new Map<number, number>();
prof.samples.forEach((id: number, i: number) => dt.set(id, (dt.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
let total = 0;
for (const node of prof.nodes) {
  const t = dt.get(node.id) ?? 0;
  total += t;
  const cf = node.callFrame;
  const key = `${cf.functionName || '(anon)'} ${cf.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/src\//, 'src/')}:${cf.lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + t);
}
// CPU the gateway spent per operation: steadier than throughput on a VM whose speed drifts.
const idle = self.get('(idle) :-1') ?? 0;
console.log(
  `gateway busy ${((total - idle) / 1000 / done).toFixed(3)} ms of CPU per ${process.argv.includes('--lifecycle') ? 'paid payment' : 'created payment'} (whole run incl. start-up, ${done} done)`,
);
const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.PROFILE_TOP ?? 35));
for (const [k, t] of top) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`);
// Inclusive time (the function and everything it called, counted once per stack): where a flat
// profile's cost comes from.
const byId = new Map<
  number,
  { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
>(prof.nodes.map((n: { id: number }) => [n.id, n]));
const inclusive = new Map<string, number>();
const keyOf = (n: { callFrame: { functionName: string; url: string; lineNumber: number } }) =>
  `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(src|dist)\//, '$1/')}:${n.callFrame.lineNumber}`;
const walk = (id: number, onStack: Set<string>): number => {
  const n = byId.get(id)!;
  const k = keyOf(n);
  let t = dt.get(id) ?? 0;
  const fresh = !onStack.has(k);
  if (fresh) onStack.add(k);
  for (const c of n.children ?? []) t += walk(c, onStack);
  if (fresh) {
    onStack.delete(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + t);
  }
  return t;
};
walk(prof.nodes[0].id, new Set());
console.log('inclusive:');
for (const [k, t] of [...inclusive.entries()]
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(process.env.PROFILE_INCLUSIVE ?? 60)))
  console.log(`${((100 * t) / (total - idle)).toFixed(1).padStart(5)}%  ${k}`);
console.log(`profile: ${path.join(profDir, file)}`);
