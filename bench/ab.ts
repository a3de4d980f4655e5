// `node --import tsx bench/ab.ts VARIANT...`: gateway variants side by side under the bench's
// create-payment load, in alternating rounds, so that every variant sees the same minutes of a
// shared machine. A VARIANT is JSON: {"name": "sb16", "env": {...}, "flags": "--max-old-space-size=160",
// "bundle": ".tmp/main-dist/main.mjs", "floor": true}; env DATABASE_URL "" runs it on PGlite,
// "pg" on a throwaway PostgreSQL database of its own, "pgbouncer" on one reached through Debian's
// PgBouncer in transaction mode (started here); "floor": true is the bare floor server.
// AB_LIFECYCLE_RATE=400: instead of the create load, each round runs the bench's lifecycle (create →
// pay → callback → GET) at that many payments a second on each gateway variant (PostgreSQL or PGlite).
// AB_OPS=1: instead, each round runs the bench's refunds and completions phase (bench/merchant-ops.ts:
// 1,024 paid payments of one merchant, then of 64, by 64 connections, then as many saved-card
// charges; AB_OPS_PAYMENTS to change) on each variant.
// Rounds rotate the order of the variants. AB_ROUNDS (3), AB_DURATION (10 s), BENCH_CONNECTIONS (64). Prints each round, the median, the
// ratio of each variant to the first, and each variant's peak RSS (VmHWM, every process; after the
// lifecycle rounds too).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { SERVER_URL } from '../src/testing/databases.ts';
import { startPgbouncer, type Pgbouncer } from '../src/testing/pgbouncer.ts';
import pg from 'pg';
import { benchMerchantOps, type OpsRound } from './merchant-ops.ts';
import {
  CONNECTIONS,
  PAYMENT,
  benchCallbacks,
  createDatabase,
  freePort,
  load,
  metricValue,
  peakRssTree,
  settleDatabase,
  startGateway,
  startProcess,
  warm,
  type Load,
  type Proc,
} from './run.ts';

interface Variant {
  name: string;
  env?: Record<string, string>;
  flags?: string;
  bundle?: string;
  floor?: boolean;
}

const variants = process.argv.slice(2).map((a) => JSON.parse(a) as Variant);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 3);
const DURATION = Number(process.env.AB_DURATION ?? 10);
/** Resident MB of a process by kind of mapping (/proc/PID/smaps): where its memory is. */
function residentByKind(pid: number): string {
  const sums = new Map<string, number>();
  let kind = '';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      const mb = (parseInt(m[2]!, 16) - parseInt(m[1]!, 16)) / 2 ** 20;
      const file = m[4]!;
      kind = file.endsWith('/node')
        ? 'node binary'
        : file.startsWith('[')
          ? file
          : file
            ? 'other files'
            : mb >= 128
              ? 'wasm memory'
              : m[3]!.includes('x')
                ? 'anon code'
                : 'anon';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) sums.set(kind, (sums.get(kind) ?? 0) + Number(rss[1]) / 1024);
  }
  return [...sums]
    .filter(([, mb]) => mb >= 1)
    .map(([k, mb]) => `${k} ${Math.round(mb)}`)
    .join(', ');
}
/** CPU seconds used so far by these processes (/proc/PID/stat: user + system). */
function cpuSeconds(pids: number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum += (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      // ended meanwhile
    }
  }
  return sum;
}

/** The PostgreSQL backends serving a database (its pool's connections are long-lived). */
async function backendPids(dbName: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: SERVER_URL });
  await c.connect();
  try {
    return (await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName])).rows.map(
      (r) => r.pid,
    );
  } finally {
    await c.end();
  }
}

/** Create's group commit so far (the gateway's /metrics; null for the floor): statements, rows. */
async function insertCounters(url: string): Promise<{ statements: number; rows: number } | null> {
  try {
    const text = await (await fetch(`${new URL(url).origin}/metrics`)).text();
    const c = {
      statements: metricValue(text, 'karibche_payment_insert_statements_total'),
      rows: metricValue(text, 'karibche_payment_insert_rows_total'),
    };
    return Number.isNaN(c.statements) ? null : c;
  } catch {
    return null;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (!variants.some((v) => v.bundle)) execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
interface Round extends Load {
  /** CPU milliseconds per answered request: the server's processes, and the PostgreSQL backends (plus PgBouncer) serving it. */
  serverCpuMs: number;
  dbCpuMs: number;
}
const targets: {
  v: Variant;
  proc: Proc;
  url: string;
  headers: Record<string, string>;
  runs: Round[];
  dbName?: string;
  dbUrl?: string;
  drop?: () => Promise<void>;
}[] = [];
const LIFECYCLE_RATE = Number(process.env.AB_LIFECYCLE_RATE ?? 0);
const OPS = process.env.AB_OPS === '1';
/** The create load, unless a round runs the lifecycle or the operations instead. */
const CREATE_LOAD = LIFECYCLE_RATE === 0 && !OPS;
const opsRuns = new Map<string, { one: OpsRound; many: OpsRound; chargesOne: OpsRound; chargesMany: OpsRound }[]>();
const lifecycleRuns = new Map<string, Awaited<ReturnType<typeof benchCallbacks>>[]>();
let bouncer: Pgbouncer | null = null;
try {
  for (const v of variants) {
    const viaBouncer = v.env?.DATABASE_URL === 'pgbouncer';
    const db = v.floor || v.env?.DATABASE_URL === 'pg' || viaBouncer ? await createDatabase() : null;
    if (viaBouncer) bouncer ??= await startPgbouncer(SERVER_URL, 20);
    if (v.floor) {
      const port = await freePort();
      const proc = await startProcess(['--import', 'tsx', 'bench/floor-server.ts'], {
        DATABASE_URL: db!.url,
        PORT: String(port),
      });
      targets.push({
        v,
        proc,
        url: `http://127.0.0.1:${port}/floor`,
        headers: {},
        runs: [],
        dbName: new URL(db!.url).pathname.slice(1),
        drop: db!.drop,
      });
      continue;
    }
    const env = {
      ...v.env,
      ...(db ? { DATABASE_URL: viaBouncer ? bouncer!.urlFor(db.url) : db.url } : {}),
      ...(viaBouncer ? { KARIBCHE_DATABASE_DIRECT_URL: db!.url } : {}),
    };
    const gw = await startGateway(env, 0, { flags: v.flags?.split(' ').filter(Boolean), bundle: v.bundle });
    targets.push({
      v,
      proc: gw.proc,
      url: gw.url,
      headers: gw.headers,
      runs: [],
      dbName: db ? new URL(db.url).pathname.slice(1) : undefined,
      dbUrl: db?.url,
      drop: db?.drop,
    });
  }
  for (const t of targets) await warm(t.url, t.headers, PAYMENT);
  for (let i = 0; LIFECYCLE_RATE > 0 && i < ROUNDS; i++) {
    for (const t of targets.map((_, k) => targets[(k + i) % targets.length]!)) {
      if (t.v.floor) continue;
      if (t.dbUrl) await settleDatabase(t.dbUrl);
      // A variant on PGlite (no database URL) runs it too: the bench reads what it needs from the API.
      const c = await benchCallbacks({ url: t.url, headers: t.headers, proc: t.proc }, t.dbUrl ?? null, LIFECYCLE_RATE);
      lifecycleRuns.set(t.v.name, [...(lifecycleRuns.get(t.v.name) ?? []), c]);
      console.log(
        `round ${i + 1} ${t.v.name.padEnd(16)} lifecycle asked ${LIFECYCLE_RATE}/s: paid ${c.achievedRate}/s (${c.skipped} skipped, ${c.errors} errors), callback p50 ${c.p50} p99 ${c.p99} ms, create p99 ${c.steps.create.p99}, pay p99 ${c.steps.pay.p99}, get p99 ${c.steps.getAfterCallback.p99} ms, commits/payment ${c.commitsPerPayment}, cores gateway ${c.cores.gateway} PostgreSQL ${c.cores.postgres}; ${JSON.stringify(c.waitEvents)}`,
      );
    }
  }
  /** A variant's peak RSS so far (VmHWM of each of its processes). */
  const peakRss = (name: string) =>
    peakRssTree(targets.find((t) => t.v.name === name)!.proc.child.pid!)
      .map((p) => p.peakRssMb)
      .join('+');
  if (LIFECYCLE_RATE > 0) {
    console.log(
      `\nlifecycle asked ${LIFECYCLE_RATE}/s, ${ROUNDS} alternating rounds of ${process.env.BENCH_DURATION ?? 10} s, median:`,
    );
    for (const [name, runs] of lifecycleRuns) {
      const m = (f: (c: (typeof runs)[number]) => number) => median(runs.map(f));
      console.log(
        `${name.padEnd(16)} paid ${m((c) => c.achievedRate)}/s  callback p50 ${m((c) => c.p50)} p99 ${m((c) => c.p99)} ms  create p99 ${m((c) => c.steps.create.p99)}  pay p99 ${m((c) => c.steps.pay.p99)}  get p99 ${m((c) => c.steps.getAfterCallback.p99)} ms  commits/payment ${runs[0]!.commitsPerPayment === null ? '-' : m((c) => c.commitsPerPayment ?? 0)}  rounds ${runs.map((c) => c.achievedRate).join('/')}  peak RSS ${peakRss(name)} MB`,
      );
    }
  }
  for (let i = 0; OPS && i < ROUNDS; i++) {
    for (const t of targets.map((_, k) => targets[(k + i) % targets.length]!)) {
      if (t.v.floor || !t.dbUrl) continue;
      await settleDatabase(t.dbUrl);
      const r = await benchMerchantOps(new URL(t.url).origin, t.dbUrl, {
        rounds: 1,
        perRound: Number(process.env.AB_OPS_PAYMENTS ?? 1_024),
      });
      const pair = {
        one: r.one[0]!,
        many: r.many[0]!,
        chargesOne: r.executions.one[0]!,
        chargesMany: r.executions.many[0]!,
      };
      opsRuns.set(t.v.name, [...(opsRuns.get(t.v.name) ?? []), pair]);
      const fmt = (o: OpsRound) => `${o.opsPerSecond}/s p50 ${o.p50} p99 ${o.p99} ms (${o.errors} errors)`;
      console.log(
        `round ${i + 1} ${t.v.name.padEnd(16)} refunds + completions: one merchant ${fmt(pair.one)}; ${CONNECTIONS} merchants ${fmt(pair.many)} | saved-card charges: ${fmt(pair.chargesOne)}; ${fmt(pair.chargesMany)}`,
      );
    }
  }
  if (OPS) {
    console.log(`\nrefunds + completions, ${ROUNDS} alternating rounds, median:`);
    for (const [name, runs] of opsRuns) {
      const m = (f: (r: (typeof runs)[number]) => number) => median(runs.map(f));
      console.log(
        `${name.padEnd(16)} one merchant ${m((r) => r.one.opsPerSecond)}/s p99 ${m((r) => r.one.p99)} ms; ${CONNECTIONS} merchants ${m((r) => r.many.opsPerSecond)}/s p99 ${m((r) => r.many.p99)} ms  rounds ${runs.map((r) => `${r.one.opsPerSecond}+${r.many.opsPerSecond}`).join('/')} | charges ${m((r) => r.chargesOne.opsPerSecond)}/s p99 ${m((r) => r.chargesOne.p99)} ms; ${m((r) => r.chargesMany.opsPerSecond)}/s p99 ${m((r) => r.chargesMany.p99)} ms`,
      );
    }
  }
  for (let i = 0; CREATE_LOAD && i < ROUNDS; i++) {
    // Each round starts one variant later: a variant that always ran right after another one (its
    // database's checkpoint, the other process's garbage) measured up to 15% worse for its place.
    for (const t of targets.map((_, k) => targets[(k + i) % targets.length]!)) {
      const server = peakRssTree(t.proc.child.pid!).map((p) => p.pid);
      const dbPids = async () => [
        ...(t.dbName ? await backendPids(t.dbName) : []),
        ...(t.v.env?.DATABASE_URL === 'pgbouncer' && bouncer ? [bouncer.pid] : []),
      ];
      const db = await dbPids();
      const inserts = t.v.floor ? null : await insertCounters(t.url);
      const before = [cpuSeconds(server), cpuSeconds(db)];
      const l = await load(t.url, t.headers, PAYMENT, DURATION);
      // Backends a pool opened during the round count whole (an idle pool closes its connections).
      const dbAfter = cpuSeconds(db) + cpuSeconds((await dbPids()).filter((p) => !db.includes(p)));
      const perRequest = (a: number, b: number) => Number(((1000 * (b - a)) / Math.max(1, l.requests)).toFixed(3));
      const r = {
        ...l,
        serverCpuMs: perRequest(before[0]!, cpuSeconds(server)),
        dbCpuMs: perRequest(before[1]!, dbAfter),
      };
      t.runs.push(r);
      const insertsAfter = inserts && (await insertCounters(t.url));
      const perStatement =
        inserts && insertsAfter
          ? `  rows/insert ${((insertsAfter.rows - inserts.rows) / Math.max(1, insertsAfter.statements - inserts.statements)).toFixed(1)}`
          : '';
      console.log(
        `round ${i + 1} ${t.v.name.padEnd(16)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.non2xx + r.errors}  CPU ms/request: server ${r.serverCpuMs}, database ${r.dbCpuMs}${perStatement}`,
      );
    }
  }
  const first = median(targets[0]!.runs.map((r) => r.rps));
  if (CREATE_LOAD) console.log(`\n${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION} s, median:`);
  for (const t of CREATE_LOAD ? targets : []) {
    const rps = median(t.runs.map((r) => r.rps));
    const rss = peakRssTree(t.proc.child.pid!).map((p) => p.peakRssMb);
    console.log(
      `${t.v.name.padEnd(16)} ${String(rps).padStart(6)} req/s (×${(rps / first).toFixed(2)} of ${targets[0]!.v.name})  p99 ${median(t.runs.map((r) => r.p99))} ms  rounds ${t.runs.map((r) => r.rps).join('/')}  CPU ms/request server ${median(t.runs.map((r) => r.serverCpuMs))} + database ${median(t.runs.map((r) => r.dbCpuMs))}  peak RSS ${rss.join('+')} MB`,
    );
    if (process.env.AB_SMAPS)
      for (const p of peakRssTree(t.proc.child.pid!)) console.log(`  ${p.pid} resident now: ${residentByKind(p.pid)}`);
  }
} finally {
  for (const t of targets) {
    await t.proc.stop();
    await t.drop?.();
  }
  await bouncer?.stop();
}
