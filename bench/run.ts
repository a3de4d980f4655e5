// `npm run bench`: the gateway as `npm start` runs it (the dist/ bundle). Create-payment throughput and latency on PostgreSQL against the floor server
// (bare Fastify + one pg INSERT) under the same load, then on PGlite. Every figure comes from this
// run on this machine; the table is printed and written to bench/results.json.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

const SERVER_URL = process.env.KARIBCHE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const QUICK = process.argv.includes('--quick');
/** --only=floor,pg,pglite runs a subset (for experiments); the README figures come from full runs. */
const ONLY = new Set((process.argv.find((a) => a.startsWith('--only='))?.slice(7) ?? 'floor,pg,checkout,callbacks,pglite').split(','));
/** Lifecycle arrival rates (payments/s): one the machine sustains, and the target. */
const CALLBACK_RATES = (process.env.BENCH_CALLBACK_RATE ?? '200,400,500').split(',').map(Number);
const DURATION = Number(process.env.BENCH_DURATION ?? (QUICK ? 2 : 10));
const WARMUP = QUICK ? 1 : 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const ADMIN = `bench-admin-${randomBytes(12).toString('hex')}`;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

interface Proc {
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startProcess(args: string[], env: Record<string, string>): Promise<Proc> {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 60_000;
  while (!/Server listening|gateway on http/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`process failed to start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    stop: () =>
      new Promise((resolve) => {
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Peak RSS (MB) of a gateway's processes: the primary and, with KARIBCHE_WORKERS, each worker. */
function peakRssTree(pid: number): { pid: number; peakRssMb: number | null }[] {
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    children = [];
  }
  return [pid, ...children].map((p) => ({ pid: p, peakRssMb: peakRssMb(p) }));
}

/** CPU seconds so far of the gateway's processes, PostgreSQL's and this load generator's (/proc). */
function cpuSnapshot(gatewayPid: number): { gateway: number; postgres: number; loadGenerator: number; at: number } {
  const ticks = (pid: string) => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), cpu: (Number(f[11]) + Number(f[12])) / 100 };
  };
  const gateway = new Set(peakRssTree(gatewayPid).map((p) => String(p.pid)));
  const out = { gateway: 0, postgres: 0, loadGenerator: ticks(String(process.pid)).cpu, at: Date.now() };
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const t = ticks(pid);
      if (gateway.has(pid)) out.gateway += t.cpu;
      else if (t.comm === 'postgres') out.postgres += t.cpu;
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** Cores each party used between two snapshots. */
function coresUsed(a: ReturnType<typeof cpuSnapshot>, b: ReturnType<typeof cpuSnapshot>) {
  const s = (b.at - a.at) / 1000;
  const r = (x: number) => Number((x / s).toFixed(2));
  return { gateway: r(b.gateway - a.gateway), postgres: r(b.postgres - a.postgres), loadGeneratorAndReceiver: r(b.loadGenerator - a.loadGenerator) };
}

/** Peak resident set size (VmHWM) of a process, in MB. */
function peakRssMb(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

// The load's HTTP client (checkout create + pay, lifecycle): node:http with keep-alive rather than fetch, which costs this process about
// twice the CPU per request, CPU the gateway and PostgreSQL share with it on this machine.
const clientAgent = new http.Agent({ keepAlive: true, maxSockets: 512 });
function call(method: string, url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; json<T>(): T }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: clientAgent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, json: <T>() => JSON.parse(text) as T });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function settleDatabase(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('VACUUM ANALYZE');
    await c.query('CHECKPOINT');
  } finally {
    await c.end();
  }
  await new Promise((r) => setTimeout(r, 1_000));
}

async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `karibche_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: SERVER_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  requests: number;
}

async function load(url: string, headers: Record<string, string>, body: string, duration: number): Promise<Load> {
  const r = await autocannon({ url, method: 'POST', connections: CONNECTIONS, duration, headers: { 'content-type': 'application/json', ...headers }, body });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, requests: r.requests.total };
}

async function merchantHeaders(base: string): Promise<Record<string, string>> {
  const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const created = await (await fetch(`${base}/admin/v1/merchants`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench', currencies: ['GEL'], methods: [4, 5, 7] }) })).json();
  const c = created.credentials;
  const tok = await (await fetch(`${base}/v1/gateway/access-token`, { method: 'POST', headers: { apikey: c.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ client_id: c.clientId, client_secret: c.clientSecret }) })).json();
  return { apikey: c.apiKey, authorization: `Bearer ${tok.access_token}` };
}

/** Percentile of sorted latencies (ms). */
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0);

/** `concurrency` workers repeating `step` for `seconds`; per-step latencies and completions per second. */
async function closedLoop(concurrency: number, seconds: number, step: () => Promise<void>) {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        try {
          await step();
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { perSecond: Math.round(latencies.length / seconds), p50: Number(pct(latencies, 50).toFixed(1)), p99: Number(pct(latencies, 99).toFixed(1)), completed: latencies.length, errors };
}

/** Bytes of a page and of everything it loads (stylesheets, scripts, images). */
async function pageWeight(url: string): Promise<{ html: number; total: number; resources: number }> {
  const origin = new URL(url).origin;
  const htmlText = await (await fetch(url)).text();
  const refs = [...htmlText.matchAll(/(?:href|src)="(\/[^"]+\.(?:css|js|png|svg|ico))"/g)].map((m) => m[1]!);
  let total = Buffer.byteLength(htmlText);
  for (const ref of refs) total += (await (await fetch(origin + ref)).arrayBuffer()).byteLength;
  return { html: Buffer.byteLength(htmlText), total, resources: refs.length };
}

const PAYMENT = JSON.stringify({ amount: { currency: 'GEL', total: '25.40' }, returnurl: 'https://shop.example/return', merchantPaymentId: 'bench', language: 'EN' });

/** The V8 flags `npm start` runs the gateway with (package.json config.nodeFlags), or BENCH_GATEWAY_FLAGS. */
const NODE_FLAGS = (process.env.BENCH_GATEWAY_FLAGS ?? JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).config.nodeFlags).split(' ').filter(Boolean);

async function startGateway(env: Record<string, string>, port: number) {
  const proc = await startProcess([...NODE_FLAGS, 'dist/main.mjs'], { PORT: String(port), KARIBCHE_ADMIN_TOKEN: ADMIN, KARIBCHE_WORKERS: process.env.BENCH_WORKERS ?? '1', ...env });
  const base = `http://127.0.0.1:${port}`;
  return { proc, url: `${base}/v1/gateway/payments`, headers: await merchantHeaders(base) };
}

/** Mean of several runs (throughput, latency percentiles) so that one noisy run weighs less. */
function mean(runs: Load[]): Load {
  const avg = (k: keyof Load) => runs.reduce((a, r) => a + r[k], 0) / runs.length;
  return { rps: Math.round(avg('rps')), p50: avg('p50'), p99: avg('p99'), non2xx: avg('non2xx'), errors: avg('errors'), requests: Math.round(avg('requests')) };
}

/** Checkout render under load, page weight, and payments completed per second via simulate. */
async function benchCheckout(gw: { url: string; headers: Record<string, string> }) {
  const base = gw.url.replace(/\/v1\/gateway\/payments$/, '');
  const create = async (body = PAYMENT) => {
    const res = await call('POST', gw.url, { ...gw.headers, 'content-type': 'application/json' }, body);
    if (res.status !== 200) throw new Error(`create ${res.status}`);
    return res.json<{ payId: string; links: { uri: string }[] }>();
  };
  const p = await create(JSON.stringify({ amount: { currency: 'GEL', total: '25.40' }, returnurl: 'https://shop.example/return', description: 'Bench order' }));
  const page = p.links[1]!.uri;
  await autocannon({ url: page, connections: 32, duration: WARMUP });
  const r = await autocannon({ url: page, connections: 32, duration: DURATION });
  const render = { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, requests: r.requests.total };
  const weightCard = await pageWeight(page);
  const weightQr = await pageWeight(`${page}?method=4`);

  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const payLoop = await closedLoop(32, DURATION, async () => {
    const { payId } = await create();
    const res = await call('POST', `${base}/sandbox/v1/payments/${payId}/simulate`, admin, JSON.stringify({ method: 5, card: '4111111111111111' }));
    const body = res.json<{ status: string }>();
    if (body.status !== 'Succeeded') throw new Error(`simulate ${res.status} ${body.status}`);
  });
  return { render, pageWeightBytes: { card: weightCard, qr: weightQr }, createAndPay: payLoop };
}

/**
 * Callback latency: payments created and paid at a steady arrival rate (open loop), each with a
 * callbackUrl on a receiver in this process; latency = receipt − the final-status event's commit
 * time (gateway clock = wall clock here), read back from the database.
 */
async function benchCallbacks(gw: { url: string; headers: Record<string, string>; proc: Proc }, dbUrl: string, rate: number) {
  const base = gw.url.replace(/\/v1\/gateway\/payments$/, '');
  const arrivals = new Map<string, number>();
  let onArrival: (payId: string) => void = () => {};
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const payId = JSON.parse(body).PaymentId as string;
      if (!arrivals.has(payId)) {
        arrivals.set(payId, Date.now());
        onArrival(payId);
      }
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const rxUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/cb`;
  await fetch(`${base}/admin/v1/merchants`, { method: 'GET', headers: { authorization: `Bearer ${ADMIN}` } });
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ amount: { currency: 'GEL', total: '10.00' }, returnurl: 'https://shop.example/r', callbackUrl: rxUrl });
  // The bench merchant must accept this callback URL.
  const merchants = (await (await fetch(`${base}/admin/v1/merchants`, { headers: admin })).json()) as { merchants: { clientId: string; name: string }[] };
  const bench = merchants.merchants.find((m) => m.name === 'Bench')!;
  await fetch(`${base}/admin/v1/merchants/${bench.clientId}`, { method: 'PATCH', headers: admin, body: JSON.stringify({ callbackUrlPrefixes: ['http://127.0.0.1:*'] }) });
  const payIds: string[] = [];
  const steps = { create: [] as number[], pay: [] as number[], get: [] as number[] };
  const getsDone: Promise<void>[] = [];
  // When a callback arrives the merchant reads the payment, as the seed tells it to.
  onArrival = (payId) => {
    getsDone.push(
      (async () => {
        const t0 = performance.now();
        const res = await call('GET', `${gw.url}/${payId}`, gw.headers);
        const p = res.json<{ status: string }>();
        if (p.status === 'Succeeded') steps.get.push(performance.now() - t0);
        else errors++;
      })().catch(() => {
        errors++;
      }),
    );
  };
  let inFlight = 0;
  let skipped = 0;
  let errors = 0;
  const one = async () => {
    inFlight++;
    try {
      let t0 = performance.now();
      const created = (await call('POST', gw.url, { ...gw.headers, 'content-type': 'application/json' }, body)).json<{ payId: string }>();
      steps.create.push(performance.now() - t0);
      t0 = performance.now();
      const paid = await call('POST', `${base}/sandbox/v1/payments/${created.payId}/simulate`, admin, JSON.stringify({ card: '4111111111111111' }));
      steps.pay.push(performance.now() - t0);
      if (paid.status !== 200) errors++;
      else payIds.push(created.payId);
    } catch {
      errors++;
    } finally {
      inFlight--;
    }
  };
  const started = Date.now();
  const cpuBefore = cpuSnapshot(gw.proc.child.pid!);
  const total = rate * DURATION;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (inFlight >= 256) {
      skipped++;
      continue;
    }
    pending.push(one());
  }
  await Promise.all(pending);
  const elapsed = (Date.now() - started) / 1000;
  const cores = coresUsed(cpuBefore, cpuSnapshot(gw.proc.child.pid!));
  const deadline = Date.now() + 15_000;
  while (arrivals.size < payIds.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await Promise.all(getsDone);
  server.close();
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  const { rows } = await c.query<{ pay_id: string; at: Date }>(`SELECT pay_id, created_at AS at FROM payment_events WHERE final AND pay_id = ANY($1)`, [payIds]);
  await c.end();
  const lat = rows.filter((r) => arrivals.has(r.pay_id)).map((r) => arrivals.get(r.pay_id)! - r.at.getTime()).sort((a, b) => a - b);
  const summary = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { p50: Number(pct(sorted, 50).toFixed(1)), p99: Number(pct(sorted, 99).toFixed(1)) };
  };
  return {
    steps: { create: summary(steps.create), pay: summary(steps.pay), getAfterCallback: summary(steps.get) },
    completedLifecycles: steps.get.length,
    cores,
    targetRate: rate,
    achievedRate: Math.round(payIds.length / elapsed),
    paid: payIds.length,
    delivered: arrivals.size,
    skipped,
    errors,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    max: lat.at(-1) ?? 0,
  };
}

function checkoutLines(c: Awaited<ReturnType<typeof benchCheckout>> | undefined): string[] {
  if (!c) return [];
  return [
    '',
    `checkout page render, PostgreSQL, 32 connections: ${Math.round(c.render.rps)} pages/s, p50 ${c.render.p50} ms, p99 ${c.render.p99} ms, errors ${c.render.non2xx + c.render.errors}`,
    `checkout page weight with everything it loads: card ${c.pageWeightBytes.card.total} B (${c.pageWeightBytes.card.resources} resources), Web QR ${c.pageWeightBytes.qr.total} B (target ≤ 100 KB)`,
    `create + pay through /simulate, 32 workers: ${c.createAndPay.perSecond} payments/s, p50 ${c.createAndPay.p50} ms, p99 ${c.createAndPay.p99} ms, errors ${c.createAndPay.errors}`,
  ];
}

function callbackLines(runs: Awaited<ReturnType<typeof benchCallbacks>>[] | undefined): string[] {
  return (runs ?? []).flatMap((c) => [
    '',
    `lifecycle at ${c.targetRate}/s asked (create → pay via simulate → callback → get), PostgreSQL: payments paid at ${c.achievedRate}/s (asked ${c.targetRate}/s; ${c.skipped} arrivals skipped at 256 in flight, ${c.errors} errors); ${c.delivered}/${c.paid} callbacks received`,
    `callback latency, final-status commit → receiver: p50 ${c.p50} ms, p99 ${c.p99} ms, max ${c.max} ms (target: ≥ 500 payments/s with p99 ≤ 250 ms)`,
    `lifecycle steps (p50 / p99 ms): create ${c.steps.create.p50} / ${c.steps.create.p99}, pay ${c.steps.pay.p50} / ${c.steps.pay.p99}, get after callback ${c.steps.getAfterCallback.p50} / ${c.steps.getAfterCallback.p99}; ${c.completedLifecycles} lifecycles completed`,
    `cores used meanwhile (of ${os.cpus().length}): gateway ${c.cores.gateway}, PostgreSQL ${c.cores.postgres}, load generator + receiver ${c.cores.loadGeneratorAndReceiver}`,
  ]);
}

async function main() {
  // The gateway runs as `npm start` runs it: from the bundle.
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  const results: Record<string, unknown> = { date: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, connections: CONNECTIONS, durationSeconds: DURATION, rounds: ROUNDS };

  const floorDb = await createDatabase();
  const gwDb = await createDatabase();
  try {
    const none = { load: { rps: 0, p50: 0, p99: 0, non2xx: 0, errors: 0, requests: 0 }, rssMb: null as number | null };
    let floorLoad: Load = none.load;
    let pgRun = none;
    // Floor and gateway stay up side by side; the load alternates between them, ROUNDS times each,
    // so that both see the same machine (this VM's speed drifts by ±15% between minutes).
    if (ONLY.has('floor') || ONLY.has('pg')) {
      const floor = ONLY.has('floor') ? await startProcess(['--import', 'tsx', 'bench/floor-server.ts'], { DATABASE_URL: floorDb.url, PORT: '18090' }) : null;
      const gw = ONLY.has('pg') ? await startGateway({ DATABASE_URL: gwDb.url }, 18080) : null;
      try {
        const floorRuns: Load[] = [];
        const gwRuns: Load[] = [];
        if (floor) await load('http://127.0.0.1:18090/floor', {}, PAYMENT, WARMUP);
        if (gw) await load(gw.url, gw.headers, PAYMENT, WARMUP);
        for (let i = 0; i < ROUNDS; i++) {
          if (floor) floorRuns.push(await load('http://127.0.0.1:18090/floor', {}, PAYMENT, DURATION));
          if (gw) gwRuns.push(await load(gw.url, gw.headers, PAYMENT, DURATION));
        }
        if (floor) floorLoad = mean(floorRuns);
        if (gw) pgRun = { load: mean(gwRuns), rssMb: peakRssMb(gw.proc.child.pid!) };
        if (gw) results.processesAfterCreateLoad = peakRssTree(gw.proc.child.pid!);
        if (gw && ONLY.has('checkout')) results.checkout = await benchCheckout(gw);
        if (gw && ONLY.has('callbacks')) {
          const runs = [];
          for (const rate of CALLBACK_RATES) {
            // Each run starts without the write-back debt of the run before it (the create load
            // leaves ~150,000 rows' worth of dirty pages; a checkpoint mid-run stalls every commit).
            await settleDatabase(gwDb.url);
            runs.push(await benchCallbacks(gw, gwDb.url, rate));
          }
          results.lifecycle = runs;
        }
        if (gw) results.processes = peakRssTree(gw.proc.child.pid!);
        results.roundsRps = { floor: floorRuns.map((r) => r.rps), createPaymentPostgres: gwRuns.map((r) => r.rps) };
      } finally {
        await floor?.stop();
        await gw?.proc.stop();
      }
    }
    let pgliteRun = none;
    if (ONLY.has('pglite')) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-bench-'));
      const gw = await startGateway({ DATABASE_URL: '', KARIBCHE_DATA_DIR: dataDir }, 18081);
      try {
        await load(gw.url, gw.headers, PAYMENT, WARMUP);
        pgliteRun = { load: await load(gw.url, gw.headers, PAYMENT, DURATION), rssMb: peakRssMb(gw.proc.child.pid!) };
      } finally {
        await gw.proc.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }
    const ratio = floorLoad.rps ? Number((pgRun.load.rps / floorLoad.rps).toFixed(2)) : null;
    Object.assign(results, { floor: floorLoad, createPaymentPostgres: { ...pgRun.load, peakRssMb: pgRun.rssMb }, ratio, createPaymentPglite: { ...pgliteRun.load, peakRssMb: pgliteRun.rssMb } });

    const row = (name: string, l: Load, rss?: number | null) =>
      `| ${name.padEnd(34)} | ${String(l.rps).padStart(7)} | ${l.p50.toFixed(1).padStart(6)} | ${l.p99.toFixed(1).padStart(6)} | ${String(l.non2xx + l.errors).padStart(6)} | ${rss == null ? '     -' : String(rss).padStart(6)} |`;
    const table = [
      `Karibche bench — ${CONNECTIONS} connections, ${DURATION} s per run, floor and PostgreSQL: mean of ${ROUNDS} alternating rounds; ${os.cpus().length} cores, Node ${process.version}`,
      '',
      '| run                                | req/s   | p50 ms | p99 ms | errors | RSS MB |',
      '|------------------------------------|---------|--------|--------|--------|--------|',
      row('floor: Fastify + 1 pg INSERT', floorLoad),
      row('create-payment, PostgreSQL', pgRun.load, pgRun.rssMb),
      row('create-payment, PGlite', pgliteRun.load, pgliteRun.rssMb),
      '',
      `create-payment / floor = ${ratio} (target ≥ 0.6); p99 ${pgRun.load.p99.toFixed(1)} ms (target ≤ 25 ms)`,
      ...checkoutLines(results.checkout as Awaited<ReturnType<typeof benchCheckout>> | undefined),
      ...callbackLines(results.lifecycle as Awaited<ReturnType<typeof benchCallbacks>>[] | undefined),
      ...(results.processes ? ['', `gateway processes, peak RSS: ${(results.processes as { pid: number; peakRssMb: number | null }[]).map((p) => `${p.pid}: ${p.peakRssMb} MB`).join(', ')} (target ≤ 200 MB each)`] : []),
    ].join('\n');
    console.log(table);
    fs.writeFileSync(process.env.BENCH_OUT ?? path.join(root, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await floorDb.drop();
    await gwDb.drop();
  }
}

await main();
