// `npm run bench`: the gateway as `npm start` runs it (the dist/ bundle). Create-payment throughput and latency on PostgreSQL against the floor server
// (bare Fastify + one pg INSERT) under the same load, then on PGlite. Every figure comes from this
// run on this machine; the table is printed and written to bench/results.json.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
// A reserved port below the ephemeral range (the bench may run beside another one, a sandbox, or the suite).
import { freePort } from '../src/testing/ports.ts';

export { freePort };
import { benchMerchantOps, sampleWaits, type OpsRound } from './merchant-ops.ts';

const SERVER_URL = process.env.KARIBCHE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const QUICK = process.argv.includes('--quick');
/** --only=floor,pg,ops,checkout,callbacks,pglite runs a subset (for experiments); the README figures come from full runs. */
const ONLY = new Set(
  (process.argv.find((a) => a.startsWith('--only='))?.slice(7) ?? 'floor,pg,ops,checkout,callbacks,pglite').split(','),
);
/**
 * Lifecycle arrival rates, each in payments a second or as `0.15x`: that share of this run's floor.
 * The targets are shares of the floor, so the default rates are too: fixed ones (200, 400, 500 a
 * second until 2026-11-29) asked 0.06 × at most of a host whose floor does 8,700 req/s, and could
 * never show the 0.15 × target met or missed there. `--quick` (the suite's check that the bench
 * runs) asks one rate on each backend.
 */
const CALLBACK_RATES = process.env.BENCH_CALLBACK_RATE ?? (QUICK ? '0.05x' : '0.05x,0.1x,0.15x');
/** The lifecycle's rates on PGlite (the embedded default's target is lower: ≥ 0.1 × the floor). */
const PGLITE_CALLBACK_RATES = process.env.BENCH_PGLITE_CALLBACK_RATE ?? (QUICK ? '0.05x' : '0.05x,0.1x');

/** The payments a second each rate of `spec` asks, against this run's floor (req/s; 0 if not measured). */
export function lifecycleRates(spec: string, floorRps: number): number[] {
  return spec.split(',').map((r) => {
    const share = /^\s*(\d*\.?\d+)x\s*$/.exec(r);
    const rate = share ? Math.round(Number(share[1]) * floorRps) : Number(r);
    if (share && !(floorRps > 0))
      throw new Error(
        `lifecycle rate ${r.trim()}: a share of the floor, and this run measured no floor (add floor to --only, or give payments a second)`,
      );
    if (!(rate > 0))
      throw new Error(`lifecycle rate ${r.trim()}: payments a second (e.g. 400) or a share of the floor (e.g. 0.15x)`);
    return rate;
  });
}
const DURATION = Number(process.env.BENCH_DURATION ?? (QUICK ? 2 : 10));
const WARMUP = QUICK ? 1 : 3;
/**
 * Requests before a server is measured: a count, not seconds, so that its code is as warm (JIT,
 * caches, pools) on a slow minute as on a fast one. With a 3 s warm-up on a crowded minute the
 * gateway's three rounds climbed 210 → 585 → 825 req/s while the floor held steady.
 */
export const WARMUP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? (QUICK ? 200 : 10_000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
export const ADMIN = `bench-admin-${randomBytes(12).toString('hex')}`;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export interface Proc {
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startProcess(args: string[], env: Record<string, string>): Promise<Proc> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Only the tail is kept: a gateway logging every request under load writes megabytes a second.
  let out = '';
  const keep = (d: Buffer) => (out = (out + d).slice(-64_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
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
export function peakRssTree(pid: number): { pid: number; peakRssMb: number | null }[] {
  let children: number[] = [];
  try {
    children = fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
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
    return {
      comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      cpu: (Number(f[11]) + Number(f[12])) / 100,
      // Its children's that it reaped: PostgreSQL's postmaster keeps the CPU of every backend that
      // ended, so a session closed between two snapshots still counts (without it the total could fall).
      reaped: (Number(f[13]) + Number(f[14])) / 100,
    };
  };
  const gateway = new Set(peakRssTree(gatewayPid).map((p) => String(p.pid)));
  const out = { gateway: 0, postgres: 0, loadGenerator: ticks(String(process.pid)).cpu, at: Date.now() };
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const t = ticks(pid);
      if (gateway.has(pid)) out.gateway += t.cpu;
      else if (t.comm === 'postgres') out.postgres += t.cpu + t.reaped;
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
  return {
    gateway: r(b.gateway - a.gateway),
    postgres: r(b.postgres - a.postgres),
    loadGeneratorAndReceiver: r(b.loadGenerator - a.loadGenerator),
  };
}

/** Peak resident set size (VmHWM) of a process, in MB. */
export function peakRssMb(pid: number): number | null {
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
export function call(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json<T>(): T }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: clientAgent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, json: <T>() => JSON.parse(text) as T });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A metric's value in a Prometheus text exposition (NaN when absent). */
export const metricValue = (text: string, name: string) =>
  Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

/**
 * Reads the gateway's /metrics every 500 ms until stopped: requests waiting for a database
 * connection, the event loop's delay, callbacks not yet delivered — where a step's time goes when
 * it is waiting rather than working. Mean and max of each.
 */
function sampleGateway(base: string): { stop(): Promise<Record<string, { mean: number; max: number }>> } {
  const series: Record<string, number[]> = {
    poolWaiting: [],
    eventLoopLagMs: [],
    eventLoopLagMaxMs: [],
    gcSecondsSoFar: [],
    callbacksPending: [],
  };
  let running = true;
  const done = (async () => {
    while (running) {
      const text = await (await fetch(`${base}/metrics`)).text().catch(() => '');
      series.poolWaiting!.push(metricValue(text, 'karibche_db_pool_waiting'));
      series.eventLoopLagMs!.push(metricValue(text, 'karibche_nodejs_eventloop_lag_seconds') * 1000);
      series.callbacksPending!.push(metricValue(text, 'karibche_callbacks_pending'));
      series.eventLoopLagMaxMs!.push(metricValue(text, 'karibche_nodejs_eventloop_lag_max_seconds') * 1000);
      const gc = [...text.matchAll(/^karibche_nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm)];
      series.gcSecondsSoFar!.push(gc.reduce((a, m) => a + Number(m[1]), 0));
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return Object.fromEntries(
        Object.entries(series).map(([k, xs]) => {
          const ok = xs.filter((x) => Number.isFinite(x));
          const mean = ok.reduce((a, b) => a + b, 0) / Math.max(1, ok.length);
          return [k, { mean: Number(mean.toFixed(1)), max: Number(Math.max(0, ...ok).toFixed(1)) }];
        }),
      );
    },
  };
}

/** Transactions committed in `url`'s database so far (pg_stat_database). */
async function commitCount(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // The statistics snapshot is per transaction: clear it so that the count is current.
    await c.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await c.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]!.n);
  } finally {
    await c.end();
  }
}

export async function settleDatabase(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // The tables that hold rows only. A table vacuumed or analysed while empty looks empty to the
    // planner until it is analysed again, and on a server whose autovacuum is off (this machine's)
    // the plans each connection caches for it read it whole as it fills: the first round of every
    // lifecycle A/B paid 400–700/s where the next paid 1,100–1,240 (docs/performance.md,
    // "PostgreSQL's autovacuum is off on these machines"). Autovacuum never analyses an empty table.
    const { rows } = await c.query<{ t: string }>(
      `SELECT format('%I.%I', schemaname, relname) AS t FROM pg_stat_user_tables ORDER BY 1`,
    );
    for (const { t } of rows) {
      const held = await c.query(`SELECT 1 FROM ${t} LIMIT 1`);
      if (held.rowCount) await c.query(`VACUUM ANALYZE ${t}`);
    }
    await c.query('CHECKPOINT');
  } finally {
    await c.end();
  }
  await new Promise((r) => setTimeout(r, 1_000));
}

export async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
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

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  requests: number;
}

/** Load until `WARMUP_REQUESTS` have been answered, figures discarded. */
export async function warm(url: string, headers: Record<string, string>, body: string): Promise<void> {
  await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    amount: WARMUP_REQUESTS,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

export async function load(
  url: string,
  headers: Record<string, string>,
  body: string,
  duration: number,
): Promise<Load> {
  const r = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    requests: r.requests.total,
  };
}

export async function merchantHeaders(
  base: string,
  name = 'Bench',
  settings: Record<string, unknown> = {},
): Promise<Record<string, string>> {
  const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const created = await (
    await fetch(`${base}/admin/v1/merchants`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name, currencies: ['GEL'], methods: [4, 5, 7], ...settings }),
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
  return { apikey: c.apiKey, authorization: `Bearer ${tok.access_token}` };
}

/** Percentile of sorted latencies (ms). */
const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;

/** `concurrency` workers repeating `step` for `seconds`; per-step latencies and completions per second. */
export async function closedLoop(concurrency: number, seconds: number, step: () => Promise<void>) {
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
  return {
    perSecond: Math.round(latencies.length / seconds),
    p50: Number(pct(latencies, 50).toFixed(1)),
    p99: Number(pct(latencies, 99).toFixed(1)),
    completed: latencies.length,
    errors,
  };
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

export const PAYMENT = JSON.stringify({
  amount: { currency: 'GEL', total: '25.40' },
  returnurl: 'https://shop.example/return',
  merchantPaymentId: 'bench',
  language: 'EN',
});

/** The V8 flags `npm start` runs the gateway with (package.json config.nodeFlags), or BENCH_GATEWAY_FLAGS. */
export const NODE_FLAGS = (
  process.env.BENCH_GATEWAY_FLAGS ??
  JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).config.nodeFlags
)
  .split(' ')
  .filter(Boolean);

/** The gateways' log level: npm start's default unless BENCH_LOG_LEVEL says otherwise. */
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || loadConfig({}).logLevel;

/**
 * The gateway as `npm start` runs it: the bundle, the same node flags, and KARIBCHE_WORKERS only
 * when BENCH_WORKERS (or env) sets it, so that it runs the default worker count. Each gateway
 * gets its own temp data dir: the bench never touches ./data of a sandbox in this checkout.
 */
export async function startGateway(
  env: Record<string, string>,
  port = 0,
  opts: { flags?: string[]; bundle?: string } = {},
) {
  port ||= await freePort();
  // A data dir of its own (removed when it stops): the bench never writes into ./data, which a
  // sandbox running from this checkout owns.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-bench-gateway-'));
  const proc = await startProcess([...(opts.flags ?? NODE_FLAGS), opts.bundle ?? 'dist/main.mjs'], {
    PORT: String(port),
    KARIBCHE_ADMIN_TOKEN: ADMIN,
    KARIBCHE_DATA_DIR: dataDir,
    // npm start's log level (two lines per request at info), read from the pipe as a log shipper would.
    LOG_LEVEL: LOG_LEVEL,
    ...(process.env.BENCH_WORKERS ? { KARIBCHE_WORKERS: process.env.BENCH_WORKERS } : {}),
    ...env,
  });
  const stop = proc.stop;
  proc.stop = async () => {
    await stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  return { proc, base, url: `${base}/v1/gateway/payments`, headers: await merchantHeaders(base) };
}

/** Median of several runs, figure by figure (throughput, each latency percentile): one noisy run weighs nothing. */
function median(runs: Load[]): Load {
  const mid = (k: keyof Load) => [...runs.map((r) => r[k])].sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
  return {
    rps: mid('rps'),
    p50: mid('p50'),
    p99: mid('p99'),
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    requests: mid('requests'),
  };
}

const brief = (l: Load) => ({ rps: l.rps, p50: l.p50, p99: l.p99 });

/** The highest peak RSS among a gateway's processes (with workers: the largest worker). */
const maxRss = (proc: Proc) => Math.max(...peakRssTree(proc.child.pid!).map((p) => p.peakRssMb ?? 0));

function merchantOpsLines(r: Awaited<ReturnType<typeof benchMerchantOps>> | undefined): string[] {
  if (!r) return [];
  const fmt = (x: OpsRound) =>
    `${x.opsPerSecond}/s p50 ${x.p50} p99 ${x.p99} ms${x.errors ? ` (${x.errors} errors)` : ''}`;
  return [
    '',
    `refunds + completions, ${CONNECTIONS} connections, alternating rounds: one merchant ${r.one.map(fmt).join('; ')} | ${CONNECTIONS} merchants ${r.many.map(fmt).join('; ')}`,
    `  wait events of PostgreSQL sessions, one merchant: ${r.one.map((x) => JSON.stringify(x.waits)).join(' ')}`,
    `  … ${CONNECTIONS} merchants: ${r.many.map((x) => JSON.stringify(x.waits)).join(' ')}`,
    `saved-card charges, ${CONNECTIONS} connections, alternating rounds: one merchant's card ${r.executions.one.map(fmt).join('; ')} | ${CONNECTIONS} merchants' ${r.executions.many.map(fmt).join('; ')}`,
  ];
}

/** Checkout render under load, page weight, and payments completed per second via simulate. */
async function benchCheckout(gw: { url: string; headers: Record<string, string> }) {
  const base = gw.url.replace(/\/v1\/gateway\/payments$/, '');
  const create = async (body = PAYMENT) => {
    const res = await call('POST', gw.url, { ...gw.headers, 'content-type': 'application/json' }, body);
    if (res.status !== 200) throw new Error(`create ${res.status}`);
    return res.json<{ payId: string; links: { uri: string }[] }>();
  };
  const p = await create(
    JSON.stringify({
      amount: { currency: 'GEL', total: '25.40' },
      returnurl: 'https://shop.example/return',
      description: 'Bench order',
    }),
  );
  const page = p.links[1]!.uri;
  await autocannon({ url: page, connections: 32, duration: WARMUP });
  const r = await autocannon({ url: page, connections: 32, duration: DURATION });
  const render = {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    requests: r.requests.total,
  };
  const weightCard = await pageWeight(page);
  const weightQr = await pageWeight(`${page}?method=4`);

  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const payLoop = await closedLoop(32, DURATION, async () => {
    const { payId } = await create();
    const res = await call(
      'POST',
      `${base}/sandbox/v1/payments/${payId}/simulate`,
      admin,
      JSON.stringify({ method: 5, card: '4111111111111111' }),
    );
    const body = res.json<{ status: string }>();
    if (body.status !== 'Succeeded') throw new Error(`simulate ${res.status} ${body.status}`);
  });
  return { render, pageWeightBytes: { card: weightCard, qr: weightQr }, createAndPay: payLoop };
}

/**
 * The time of each final-status event of these payments, as the merchant's events feed (GET
 * /v1/gateway/events) reports it: the same on PostgreSQL and on PGlite, whose database only the
 * gateway's process can open. The feed lists an event once its transaction has committed.
 */
async function finalEventTimes(
  base: string,
  headers: Record<string, string>,
  payIds: Set<string>,
): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  let after = '';
  for (;;) {
    const res = await call('GET', `${base}/v1/gateway/events?limit=500${after ? `&after=${after}` : ''}`, headers);
    if (res.status !== 200) throw new Error(`events feed ${res.status}`);
    const page = res.json<{
      items: { payId: string; final: boolean; createdAt: string }[];
      nextCursor: string;
      hasMore: boolean;
    }>();
    for (const e of page.items) if (e.final && payIds.has(e.payId)) times.set(e.payId, Date.parse(e.createdAt));
    if (!page.hasMore) return times;
    after = encodeURIComponent(page.nextCursor);
  }
}

/**
 * Callback latency: payments created and paid at a steady arrival rate (open loop), each with a
 * callbackUrl on a receiver in this process; latency = receipt − the final-status event's time
 * (gateway clock = wall clock here) from the events feed. Each run has a merchant of its own, so
 * that the feed holds this run's events only. `dbUrl` (PostgreSQL) adds the database's commits per
 * payment and its sessions' wait events; on PGlite (null) there is no server to ask.
 */
export async function benchCallbacks(
  gw: { url: string; headers: Record<string, string>; proc: Proc },
  dbUrl: string | null,
  rate: number,
) {
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
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const body = JSON.stringify({
    amount: { currency: 'GEL', total: '10.00' },
    returnurl: 'https://shop.example/r',
    callbackUrl: rxUrl,
  });
  // A merchant of this run's own, accepting the receiver's callback URL.
  const merchant = await merchantHeaders(base, `Bench lifecycle ${rate}/s ${randomBytes(3).toString('hex')}`, {
    callbackUrlPrefixes: ['http://127.0.0.1:*'],
  });
  const payIds: string[] = [];
  const steps = { create: [] as number[], pay: [] as number[], get: [] as number[] };
  const getsDone: Promise<void>[] = [];
  // When a callback arrives the merchant reads the payment, as the seed tells it to.
  onArrival = (payId) => {
    getsDone.push(
      (async () => {
        const t0 = performance.now();
        const res = await call('GET', `${gw.url}/${payId}`, merchant);
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
      const created = (await call('POST', gw.url, { ...merchant, 'content-type': 'application/json' }, body)).json<{
        payId: string;
      }>();
      steps.create.push(performance.now() - t0);
      t0 = performance.now();
      const paid = await call(
        'POST',
        `${base}/sandbox/v1/payments/${created.payId}/simulate`,
        admin,
        JSON.stringify({ card: '4111111111111111' }),
      );
      steps.pay.push(performance.now() - t0);
      if (paid.status !== 200) errors++;
      else payIds.push(created.payId);
    } catch {
      errors++;
    } finally {
      inFlight--;
    }
  };
  const commitsBefore = dbUrl ? await commitCount(dbUrl) : 0;
  const waits = dbUrl ? sampleWaits(dbUrl) : null;
  const gateway = sampleGateway(base);
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
  const waitEvents = (await waits?.stop()) ?? null;
  const gatewayWaits = await gateway.stop();
  let commitsPerPayment: number | null = null;
  if (dbUrl) {
    // Commits of the whole database per paid payment (the sampler's own reads commit nothing).
    await new Promise((r) => setTimeout(r, 1_500)); // backends flush their counts within a second of going idle
    const commits = (await commitCount(dbUrl)) - commitsBefore;
    commitsPerPayment = Number((commits / Math.max(1, payIds.length)).toFixed(1));
  }
  server.close();
  const finalAt = await finalEventTimes(base, merchant, new Set(payIds));
  const lat = [...finalAt]
    .filter(([payId]) => arrivals.has(payId))
    .map(([payId, at]) => arrivals.get(payId)! - at)
    .sort((a, b) => a - b);
  const summary = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { p50: Number(pct(sorted, 50).toFixed(1)), p99: Number(pct(sorted, 99).toFixed(1)) };
  };
  return {
    steps: { create: summary(steps.create), pay: summary(steps.pay), getAfterCallback: summary(steps.get) },
    backend: (dbUrl ? 'PostgreSQL' : 'PGlite') as 'PostgreSQL' | 'PGlite',
    commitsPerPayment,
    waitEvents,
    gatewayWaits,
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

/**
 * Issue 25's lifecycle targets: this share of the floor's create rate (on PostgreSQL; the embedded
 * default, PGlite, a smaller one), callback p99 and every step's p99 within these.
 */
const LIFECYCLE_TARGET = { callbackP99Ms: 250, stepP99Ms: 100 };
const LIFECYCLE_OF_FLOOR = { PostgreSQL: 0.15, PGlite: 0.1 } as const;

function callbackLines(runs: Awaited<ReturnType<typeof benchCallbacks>>[] | undefined, floorRps: number): string[] {
  return (runs ?? []).flatMap((c) => {
    const t = { ...LIFECYCLE_TARGET, ofFloor: LIFECYCLE_OF_FLOOR[c.backend] };
    const stepsP99 = Math.max(c.steps.create.p99, c.steps.pay.p99, c.steps.getAfterCallback.p99);
    const ofFloor = floorRps > 0 ? ` = ${(c.achievedRate / floorRps).toFixed(3)} × the floor's create rate` : '';
    const met =
      floorRps > 0 &&
      c.achievedRate >= t.ofFloor * floorRps &&
      c.p99 <= t.callbackP99Ms &&
      stepsP99 <= t.stepP99Ms &&
      c.errors === 0;
    return [
      '',
      `lifecycle at ${c.targetRate}/s asked (create → pay via simulate → callback → get), ${c.backend}: payments paid at ${c.achievedRate}/s${ofFloor} (asked ${c.targetRate}/s; ${c.skipped} arrivals skipped at 256 in flight, ${c.errors} errors); ${c.delivered}/${c.paid} callbacks received`,
      `callback latency, final-status commit → receiver: p50 ${c.p50} ms, p99 ${c.p99} ms, max ${c.max} ms; target ≥ ${t.ofFloor} × the floor with callback p99 ≤ ${t.callbackP99Ms} ms and every step's p99 ≤ ${t.stepP99Ms} ms: ${floorRps > 0 ? (met ? 'met' : 'not met') : 'no floor measured in this run'}`,
      `lifecycle steps (p50 / p99 ms): create ${c.steps.create.p50} / ${c.steps.create.p99}, pay ${c.steps.pay.p50} / ${c.steps.pay.p99}, get after callback ${c.steps.getAfterCallback.p50} / ${c.steps.getAfterCallback.p99}; ${c.completedLifecycles} lifecycles completed`,
      ...(c.waitEvents
        ? [
            `commits per paid payment ${c.commitsPerPayment}; PostgreSQL sessions sampled every 10 ms (active, by wait event): ${JSON.stringify(c.waitEvents)}`,
          ]
        : []),
      `gateway meanwhile (mean / max of samples every 500 ms): ${Object.entries(c.gatewayWaits)
        .map(([k, v]) => `${k} ${v.mean} / ${v.max}`)
        .join(', ')}`,
      `cores used meanwhile (of ${os.cpus().length}): gateway ${c.cores.gateway}${c.waitEvents ? `, PostgreSQL ${c.cores.postgres}` : ''}, load generator + receiver ${c.cores.loadGeneratorAndReceiver}`,
    ];
  });
}

/** The worker count `npm start` uses on PostgreSQL on this machine (src/config.ts), and the other one compared with it. */
function workerSettings(): { defaultWorkers: number; other: number | null } {
  const defaultWorkers = Number(process.env.BENCH_WORKERS || loadConfig({ DATABASE_URL: SERVER_URL }).workers);
  if (process.env.BENCH_WORKERS) return { defaultWorkers, other: null };
  return { defaultWorkers, other: defaultWorkers === 1 ? 2 : 1 };
}

async function main() {
  // The gateway runs as `npm start` runs it: from the bundle.
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version },
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    rounds: ROUNDS,
    logLevel: LOG_LEVEL,
  };
  const { defaultWorkers, other } = workerSettings();

  const floorDb = await createDatabase();
  const gwDb = await createDatabase();
  const otherDb = other ? await createDatabase() : null;
  try {
    const none = { load: { rps: 0, p50: 0, p99: 0, non2xx: 0, errors: 0, requests: 0 }, rssMb: null as number | null };
    let floorLoad: Load = none.load;
    let pgRun = none;
    let otherRun = none;
    // Floor and gateways stay up side by side; the load alternates between them, ROUNDS times each,
    // so that all see the same machine (this VM's speed drifts by ±15% between minutes): the
    // gateway as `npm start` runs it (its default workers) and with the other worker count.
    // --only=callbacks alone runs the lifecycle on a gateway without the create load before it.
    const gatewayNeeded = ONLY.has('pg') || ONLY.has('callbacks');
    if (ONLY.has('floor') || gatewayNeeded) {
      const floorPort = await freePort();
      const floor = ONLY.has('floor')
        ? await startProcess(['--import', 'tsx', 'bench/floor-server.ts'], {
            DATABASE_URL: floorDb.url,
            PORT: String(floorPort),
          })
        : null;
      const gw = gatewayNeeded ? await startGateway({ DATABASE_URL: gwDb.url }) : null;
      let alt =
        ONLY.has('pg') && other
          ? await startGateway({ DATABASE_URL: otherDb!.url, KARIBCHE_WORKERS: String(other) })
          : null;
      const floorUrl = `http://127.0.0.1:${floorPort}/floor`;
      try {
        const floorRuns: Load[] = [];
        const gwRuns: Load[] = [];
        const altRuns: Load[] = [];
        if (floor) await warm(floorUrl, {}, PAYMENT);
        const createLoad = gw && ONLY.has('pg');
        if (createLoad) await warm(gw.url, gw.headers, PAYMENT);
        if (alt) await warm(alt.url, alt.headers, PAYMENT);
        for (let i = 0; i < ROUNDS; i++) {
          if (floor) floorRuns.push(await load(floorUrl, {}, PAYMENT, DURATION));
          if (createLoad) gwRuns.push(await load(gw.url, gw.headers, PAYMENT, DURATION));
          if (alt) altRuns.push(await load(alt.url, alt.headers, PAYMENT, DURATION));
        }
        if (floor) floorLoad = median(floorRuns);
        if (createLoad) pgRun = { load: median(gwRuns), rssMb: maxRss(gw.proc) };
        if (alt) otherRun = { load: median(altRuns), rssMb: maxRss(alt.proc) };
        await alt?.proc.stop();
        alt = null;
        if (gw) results.processesAfterCreateLoad = peakRssTree(gw.proc.child.pid!);
        results.rounds = {
          floor: floorRuns.map(brief),
          createPaymentPostgres: gwRuns.map(brief),
          createPaymentPostgresOtherWorkers: altRuns.map(brief),
        };
        if (gw && ONLY.has('ops'))
          results.merchantOps = await benchMerchantOps(gw.base, gwDb.url, {
            rounds: Number(process.env.BENCH_OPS_ROUNDS ?? (QUICK ? 1 : 2)),
            perRound: QUICK ? CONNECTIONS * 4 : 1_024,
          });
        if (gw && ONLY.has('checkout')) results.checkout = await benchCheckout(gw);
        if (gw && ONLY.has('callbacks')) {
          const runs = [];
          for (const rate of lifecycleRates(CALLBACK_RATES, floorLoad.rps)) {
            // Each run starts without the write-back debt of the run before it (the create load
            // leaves ~150,000 rows' worth of dirty pages; a checkpoint mid-run stalls every commit).
            await settleDatabase(gwDb.url);
            runs.push(await benchCallbacks(gw, gwDb.url, rate));
          }
          results.lifecycle = runs;
        }
        if (gw) results.processes = peakRssTree(gw.proc.child.pid!);
      } finally {
        await floor?.stop();
        await gw?.proc.stop();
        await alt?.proc.stop();
      }
    }
    let pgliteRun = none;
    if (ONLY.has('pglite')) {
      const gw = await startGateway({ DATABASE_URL: '' });
      try {
        await warm(gw.url, gw.headers, PAYMENT);
        pgliteRun = { load: await load(gw.url, gw.headers, PAYMENT, DURATION), rssMb: peakRssMb(gw.proc.child.pid!) };
        // The whole payment on the embedded default too (issue 25: ≥ 0.1 × the floor), after its
        // create load as on PostgreSQL; peak RSS then covers both.
        if (ONLY.has('callbacks')) {
          const runs = [];
          for (const rate of lifecycleRates(PGLITE_CALLBACK_RATES, floorLoad.rps))
            runs.push(await benchCallbacks(gw, null, rate));
          results.lifecyclePglite = runs;
          pgliteRun.rssMb = peakRssMb(gw.proc.child.pid!);
        }
      } finally {
        await gw.proc.stop();
      }
    }
    // A floor that answered errors (its database refused connections) is no yardstick.
    const floorFailed = floorLoad.non2xx + floorLoad.errors > 0;
    const floorOk = floorLoad.rps > 0 && !floorFailed;
    const ratio = floorOk ? Number((pgRun.load.rps / floorLoad.rps).toFixed(2)) : null;
    const p99Ratio = floorOk ? Number((pgRun.load.p99 / floorLoad.p99).toFixed(2)) : null;
    // The embedded default against the same floor (issue 25: ≥ 0.9 ×); the floor runs on PostgreSQL,
    // so the ratio depends on the host (0.62–0.65 × on one 2-core host, 0.98 × on another).
    const pgliteRatio =
      floorOk && pgliteRun.load.rps > 0 ? Number((pgliteRun.load.rps / floorLoad.rps).toFixed(2)) : null;
    const otherRatio = floorOk && other ? Number((otherRun.load.rps / floorLoad.rps).toFixed(2)) : null;
    Object.assign(results, {
      floor: floorLoad,
      createPaymentPostgres: { ...pgRun.load, workers: defaultWorkers, peakRssMb: pgRun.rssMb },
      ratio,
      p99Ratio,
      ...(other
        ? {
            createPaymentPostgresOtherWorkers: { ...otherRun.load, workers: other, peakRssMb: otherRun.rssMb },
            otherRatio,
          }
        : {}),
      createPaymentPglite: { ...pgliteRun.load, peakRssMb: pgliteRun.rssMb },
      pgliteRatio,
    });

    const row = (name: string, l: Load, rss?: number | null) =>
      `| ${name.padEnd(44)} | ${String(l.rps).padStart(7)} | ${l.p50.toFixed(1).padStart(6)} | ${l.p99.toFixed(1).padStart(6)} | ${String(l.non2xx + l.errors).padStart(6)} | ${rss == null ? '     -' : String(rss).padStart(6)} |`;
    const w = (n: number) => `${n} worker${n === 1 ? '' : 's'}`;
    const table = [
      `Karibche bench — ${CONNECTIONS} connections, ${DURATION} s per run, floor and PostgreSQL: median of ${ROUNDS} alternating rounds; ${os.cpus().length} cores, Node ${process.version}; gateways at LOG_LEVEL=${LOG_LEVEL}`,
      '',
      '| run                                          | req/s   | p50 ms | p99 ms | errors | RSS MB |',
      '|----------------------------------------------|---------|--------|--------|--------|--------|',
      row('floor: Fastify + 1 pg INSERT', floorLoad),
      row(`create-payment, PostgreSQL, ${w(defaultWorkers)} (default)`, pgRun.load, pgRun.rssMb),
      ...(other ? [row(`create-payment, PostgreSQL, ${w(other)}`, otherRun.load, otherRun.rssMb)] : []),
      row('create-payment, PGlite', pgliteRun.load, pgliteRun.rssMb),
      '',
      floorFailed
        ? `create-payment / floor: not computed, the floor answered ${floorLoad.non2xx + floorLoad.errors} errors`
        : `create-payment / floor = ${ratio} with the default ${w(defaultWorkers)}${other ? `, ${otherRatio} with ${w(other)}` : ''} (target ≥ 0.8); p99 ${pgRun.load.p99.toFixed(1)} ms = ${p99Ratio} × the floor's (target ≤ 1.5 ×)`,
      ...merchantOpsLines(results.merchantOps as Awaited<ReturnType<typeof benchMerchantOps>> | undefined),
      ...checkoutLines(results.checkout as Awaited<ReturnType<typeof benchCheckout>> | undefined),
      ...callbackLines(
        results.lifecycle as Awaited<ReturnType<typeof benchCallbacks>>[] | undefined,
        floorOk ? floorLoad.rps : 0,
      ),
      ...callbackLines(
        results.lifecyclePglite as Awaited<ReturnType<typeof benchCallbacks>>[] | undefined,
        floorOk ? floorLoad.rps : 0,
      ),
      ...(results.processes
        ? [
            '',
            `gateway processes, peak RSS: ${(results.processes as { pid: number; peakRssMb: number | null }[]).map((p) => `${p.pid}: ${p.peakRssMb} MB`).join(', ')} (target ≤ 200 MB each)`,
          ]
        : []),
      `PGlite gateway peak RSS ${pgliteRun.rssMb ?? '-'} MB (target < 256 MB), ${pgliteRun.load.rps} create-payment/s (target ≥ 1,500)${pgliteRatio === null ? '' : ` = ${pgliteRatio} × the floor (target ≥ 0.9 ×)`}`,
    ].join('\n');
    console.log(table);
    fs.writeFileSync(
      process.env.BENCH_OUT ?? path.join(root, 'bench', 'results.json'),
      `${JSON.stringify(results, null, 2)}\n`,
    );
  } finally {
    await floorDb.drop();
    await gwDb.drop();
    await otherDb?.drop();
  }
}

// Run as a script (`npm run bench`); bench/ab.ts imports the helpers above.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
