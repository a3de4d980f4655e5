// The cluster as one object: bring it up, read its state, inject the faults the failover test uses
// and heal them, tear it down. `npm run cluster -- …` (cli.ts) and test/reliability/failover.test.ts
// both drive it through these functions.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import {
  PG_BIN,
  dbRouterConfig,
  etcdArgs,
  loadBalancerConfig,
  patroniConfig,
  writeLoadBalancerErrors,
} from './configs.ts';
import { createNetwork, leftovers, pidsIn, removeNetwork, setLink } from './network.ts';
import { alive, daemonPid, killDaemon, logFile, restartDaemon, startDaemon, waitDead } from './processes.ts';
import {
  PORTS,
  dbHosts,
  gatewayHosts,
  hostByName,
  hostDir,
  patroniUrl,
  topology,
  type Host,
  type Topology,
} from './topology.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const DATABASE = 'karibche';

export interface ClusterInfo {
  /** The load balancer in front of the gateways, from the root namespace. */
  base: string;
  adminTokenFile: string;
  demoMerchantFile: string;
  patroni: string[];
  etcd: string[];
  gateways: string[];
  dir: string;
  /** An address of the root namespace that the gateways reach (a callback receiver listens there). */
  rootAddress: string;
}

export function info(t: Topology): ClusterInfo {
  const gw1 = path.join(hostDir(t, gatewayHosts(t)[0]!), 'data');
  return {
    base: `http://127.0.0.1:${t.lbPort}`,
    adminTokenFile: path.join(gw1, 'admin-token'),
    demoMerchantFile: path.join(gw1, 'demo-merchant.json'),
    patroni: dbHosts(t).map(patroniUrl),
    etcd: dbHosts(t).map((h) => `http://${h.ip}:${PORTS.etcdClient}`),
    gateways: gatewayHosts(t).map((h) => `http://${h.ip}:${PORTS.gateway}`),
    dir: t.dir,
    rootAddress: t.bridgeIp,
  };
}

/** GET/POST with a deadline; null when nothing answered. */
export async function http(
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<{ status: number; body: string } | null> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 2_000) });
    return { status: res.status, body: await res.text() };
  } catch {
    return null;
  }
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`cluster: ${what} not reached in ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A standby's states that mean it follows the leader (Patroni 3.0 says running; later versions streaming). */
const RUNNING = new Set(['running', 'streaming']);
const gatewayKey = (h: Host) => `gateway@${h.name}`;
const etcdKey = (h: Host) => `etcd@${h.name}`;
const patroniKey = (h: Host) => `patroni@${h.name}`;

export interface UpOptions {
  id?: number;
  lbPort?: number;
  dir?: string;
  /** Extra environment for the gateways (the failover test shortens the reconciler's wait). */
  gatewayEnv?: Record<string, string>;
  log?: (line: string) => void;
}

export function clusterTopology(o: Pick<UpOptions, 'id' | 'lbPort' | 'dir'> = {}): Topology {
  return topology(
    o.id ?? Number(process.env.KARIBCHE_CLUSTER_ID ?? 24),
    o.lbPort ?? Number(process.env.KARIBCHE_CLUSTER_PORT ?? 8480),
    o.dir ?? process.env.KARIBCHE_CLUSTER_DIR,
  );
}

export async function up(o: UpOptions = {}): Promise<ClusterInfo> {
  const t = clusterTopology(o);
  const log = o.log ?? (() => {});
  const left = leftovers(t);
  if (left.length || fs.existsSync(t.dir))
    throw new Error(
      `cluster ${t.id} exists already (${[...left, fs.existsSync(t.dir) ? t.dir : ''].filter(Boolean).join(', ')}): run down first`,
    );
  fs.mkdirSync(t.dir, { recursive: true, mode: 0o755 });
  fs.chmodSync(t.dir, 0o755);
  fs.writeFileSync(path.join(t.dir, 'topology.json'), JSON.stringify({ id: t.id, lbPort: t.lbPort }));
  try {
    log('building the gateway bundle');
    execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs'), path.join(t.dir, 'dist')], {
      stdio: 'inherit',
    });
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(t.dir, 'node_modules'));
    log(`network: bridge ${t.bridge} ${t.subnet}, ${t.hosts.length} namespaces`);
    createNetwork(t);

    for (const h of dbHosts(t)) {
      const dir = hostDir(t, h);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(dir, 'patroni.yml'), JSON.stringify(patroniConfig(t, h), null, 2));
      execFileSync('chown', ['-R', 'postgres:postgres', dir]);
      startDaemon(t, { key: etcdKey(h), host: h, cmd: 'etcd', args: etcdArgs(t, h) });
    }
    await Promise.all(
      dbHosts(t).map((h) =>
        until(`etcd on ${h.name}`, 60_000, async () =>
          (await http(`http://${h.ip}:${PORTS.etcdClient}/health`))?.body.includes('true'),
        ),
      ),
    );
    log('etcd: 3 members healthy');
    for (const h of dbHosts(t)) {
      startDaemon(t, {
        key: patroniKey(h),
        host: h,
        cmd: 'patroni',
        args: [path.join(hostDir(t, h), 'patroni.yml')],
        user: 'postgres',
        env: { HOME: hostDir(t, h) },
      });
    }
    // initdb and two base backups: seconds on a quiet machine, minutes beside a whole test suite.
    const leader = await until(
      'a Patroni leader with a synchronous standby and a streaming replica',
      600_000,
      async () => {
        const c = await patroniCluster(t);
        const members = c?.members ?? [];
        const lead = members.find((m) => m.role === 'leader' && m.state === 'running');
        const sync = members.find(
          (m) => m.role === 'sync_standby' && (m.state === 'streaming' || m.state === 'running'),
        );
        const other = members.find((m) => m.role === 'replica' && (m.state === 'streaming' || m.state === 'running'));
        return lead && sync && other ? lead.name : null;
      },
    );
    log(`patroni: leader ${leader}, one synchronous standby, one replica`);
    await createDatabase(hostByName(t, leader));

    for (const h of gatewayHosts(t)) {
      fs.mkdirSync(path.join(hostDir(t, h), 'data'), { recursive: true });
      fs.writeFileSync(path.join(hostDir(t, h), 'haproxy.cfg'), dbRouterConfig(t));
      startDaemon(t, {
        key: `router@${h.name}`,
        host: h,
        cmd: 'haproxy',
        args: ['-f', path.join(hostDir(t, h), 'haproxy.cfg')],
      });
    }
    // The first gateway bootstraps the sandbox (admin token, demo merchant); the others start with
    // the same files, as hosts deployed from one secret store would.
    const [first, ...rest] = gatewayHosts(t);
    startGateway(t, first!, o.gatewayEnv);
    await waitGatewayReady(first!);
    for (const h of rest) {
      for (const f of ['admin-token', 'demo-merchant.json']) {
        const from = path.join(hostDir(t, first!), 'data', f);
        // No admin-token file when KARIBCHE_ADMIN_TOKEN came from the environment.
        if (fs.existsSync(from)) fs.copyFileSync(from, path.join(hostDir(t, h), 'data', f));
      }
      startGateway(t, h, o.gatewayEnv);
    }
    await Promise.all(rest.map(waitGatewayReady));
    log('gateways: 3 ready');

    writeLoadBalancerErrors(t);
    fs.writeFileSync(path.join(t.dir, 'lb.cfg'), loadBalancerConfig(t));
    startDaemon(t, { key: 'lb', host: null, cmd: 'haproxy', args: ['-f', path.join(t.dir, 'lb.cfg')] });
    await until(
      'the load balancer',
      30_000,
      async () => (await http(`http://127.0.0.1:${t.lbPort}/readyz`))?.status === 200,
    );
    log(`load balancer: http://127.0.0.1:${t.lbPort}`);
    return info(t);
  } catch (err) {
    log(`up failed: ${(err as Error).message}; logs in ${path.join(t.dir, 'logs')}`);
    throw err;
  }
}

function startGateway(t: Topology, h: Host, extra: Record<string, string> = {}): void {
  startDaemon(t, {
    key: gatewayKey(h),
    host: h,
    cmd: process.execPath,
    args: ['--max-old-space-size=160', path.join(t.dir, 'dist', 'main.mjs')],
    env: {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${PORTS.dbRouter}/${DATABASE}`,
      HOST: '0.0.0.0',
      PORT: String(PORTS.gateway),
      KARIBCHE_DATA_DIR: path.join(hostDir(t, h), 'data'),
      KARIBCHE_PUBLIC_URL: `http://127.0.0.1:${t.lbPort}`,
      KARIBCHE_WORKERS: '1',
      KARIBCHE_DB_POOL: '10',
      LOG_LEVEL: 'warn',
      ...extra,
    },
  });
}

async function waitGatewayReady(h: Host): Promise<void> {
  await until(
    `the gateway on ${h.name}`,
    300_000,
    async () => (await http(`http://${h.ip}:${PORTS.gateway}/readyz`))?.status === 200,
  );
}

async function createDatabase(leader: Host): Promise<void> {
  const c = new pg.Client({
    host: leader.ip,
    port: PORTS.postgres,
    user: 'postgres',
    database: 'postgres',
    connectionTimeoutMillis: 5_000,
  });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await c.end();
  }
}

export interface PatroniMember {
  name: string;
  role: string;
  state: string;
  host: string;
  timeline?: number;
  lag?: number | string;
}

/** Patroni's view of the cluster, from the first REST API that answers. */
export async function patroniCluster(t: Topology): Promise<{ members: PatroniMember[] } | null> {
  for (const h of dbHosts(t)) {
    const r = await http(`${patroniUrl(h)}/cluster`, { timeoutMs: 1_500 });
    if (r?.status === 200) return JSON.parse(r.body);
  }
  return null;
}

/** The host whose Patroni says it is the running leader (asked of every node; all must not disagree). */
export async function primary(t: Topology): Promise<Host | null> {
  const c = await patroniCluster(t);
  const lead = c?.members.find((m) => m.role === 'leader' && m.state === 'running');
  return lead ? hostByName(t, lead.name) : null;
}

export async function waitPrimary(t: Topology, ms: number, not?: Host): Promise<Host> {
  return until('a primary', ms, async () => {
    const p = await primary(t);
    return p && p.name !== not?.name && (await http(`${patroniUrl(p)}/primary`))?.status === 200 ? p : null;
  });
}

/** Waits until every node runs again: a leader, a synchronous standby, a streaming replica. */
export async function waitHealthy(t: Topology, ms: number): Promise<void> {
  await until('a healthy cluster (leader, sync standby, replica; 3 etcd members; 3 gateways)', ms, async () => {
    const m = (await patroniCluster(t))?.members ?? [];
    const ok =
      m.some((x) => x.role === 'leader' && x.state === 'running') &&
      m.some((x) => x.role === 'sync_standby' && RUNNING.has(x.state)) &&
      m.some((x) => x.role === 'replica' && RUNNING.has(x.state));
    if (!ok) return false;
    for (const h of dbHosts(t))
      if (!(await http(`http://${h.ip}:${PORTS.etcdClient}/health`))?.body.includes('true')) return false;
    for (const h of gatewayHosts(t))
      if ((await http(`http://${h.ip}:${PORTS.gateway}/healthz`))?.status !== 200) return false;
    return true;
  });
}

/**
 * Members that do not run (an old primary whose rewind left it unable to start, as a run of many
 * failovers met: "WAL location … belongs to timeline 12, but previous recovered WAL file came from
 * timeline 13") are rebuilt from the leader by Patroni's own reinitialize (a fresh base backup).
 * Returns the members it asked to rebuild.
 */
export async function reinitStuck(t: Topology): Promise<string[]> {
  const members = (await patroniCluster(t))?.members ?? [];
  const stuck = members.filter((m) => m.role !== 'leader' && !RUNNING.has(m.state));
  for (const m of stuck) {
    const h = hostByName(t, m.name);
    const r = await http(`${patroniUrl(h)}/reinitialize`, {
      method: 'POST',
      body: JSON.stringify({ force: true }),
      headers: { 'content-type': 'application/json' },
      timeoutMs: 10_000,
    });
    if (r?.status !== 200) throw new Error(`reinitialize ${m.name}: ${r?.status} ${r?.body}`);
  }
  return stuck.map((m) => m.name);
}

// ——— faults ———

/** SIGKILL of the primary's postmaster (Patroni fails over at once: primary_start_timeout 0). */
export async function killPrimary(t: Topology): Promise<Host> {
  const p = await waitPrimary(t, 30_000);
  const pid = Number(fs.readFileSync(path.join(hostDir(t, p), 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]);
  process.kill(pid, 'SIGKILL');
  return p;
}

/** Takes the primary's link down: its host is cut off from every other host. */
export async function partitionPrimary(t: Topology): Promise<Host> {
  const p = await waitPrimary(t, 30_000);
  setLink(p, false);
  return p;
}

export function healPartition(h: Host): void {
  setLink(h, true);
}

/** A planned switchover to the synchronous standby, through Patroni's REST API. */
export async function switchover(t: Topology): Promise<{ from: string; to: string }> {
  const p = await waitPrimary(t, 30_000);
  const sync = (await patroniCluster(t))?.members.find((m) => m.role === 'sync_standby');
  if (!sync) throw new Error('switchover: no synchronous standby');
  const r = await http(`${patroniUrl(p)}/switchover`, {
    method: 'POST',
    body: JSON.stringify({ leader: p.name, candidate: sync.name }),
    headers: { 'content-type': 'application/json' },
    timeoutMs: 60_000,
  });
  if (r?.status !== 200) throw new Error(`switchover: ${r?.status} ${r?.body}`);
  return { from: p.name, to: sync.name };
}

export function killGateway(t: Topology, name?: string): Host {
  const h = name ? hostByName(t, name) : gatewayHosts(t).find((g) => daemonPid(t, gatewayKey(g)) !== null);
  if (!h || !killDaemon(t, gatewayKey(h))) throw new Error(`no running gateway${name ? ` on ${name}` : ''}`);
  return h;
}

export async function restartGateway(t: Topology, h: Host): Promise<void> {
  if (daemonPid(t, gatewayKey(h)) === null) restartDaemon(t, gatewayKey(h));
  await waitGatewayReady(h);
}

export function killEtcd(t: Topology, name?: string): Host {
  const h = name ? hostByName(t, name) : dbHosts(t).find((d) => daemonPid(t, etcdKey(d)) !== null);
  if (!h || !killDaemon(t, etcdKey(h))) throw new Error(`no running etcd member${name ? ` on ${name}` : ''}`);
  return h;
}

export async function restartEtcd(t: Topology, h: Host): Promise<void> {
  if (daemonPid(t, etcdKey(h)) === null) restartDaemon(t, etcdKey(h));
  await until(`etcd on ${h.name}`, 60_000, async () =>
    (await http(`http://${h.ip}:${PORTS.etcdClient}/health`))?.body.includes('true'),
  );
}

/** Brings every host's link up and starts whatever daemon of the cluster is not running. */
export async function heal(t: Topology): Promise<string[]> {
  const done: string[] = [];
  for (const h of t.hosts) setLink(h, true);
  for (const h of dbHosts(t)) {
    if (daemonPid(t, etcdKey(h)) === null) restartDaemon(t, etcdKey(h)), done.push(etcdKey(h));
    if (daemonPid(t, patroniKey(h)) === null) restartDaemon(t, patroniKey(h)), done.push(patroniKey(h));
  }
  for (const h of gatewayHosts(t)) {
    if (daemonPid(t, `router@${h.name}`) === null) restartDaemon(t, `router@${h.name}`), done.push(`router@${h.name}`);
    if (daemonPid(t, gatewayKey(h)) === null) restartDaemon(t, gatewayKey(h)), done.push(gatewayKey(h));
  }
  if (daemonPid(t, 'lb') === null) restartDaemon(t, 'lb'), done.push('lb');
  // A member still not running a minute later is rebuilt from the leader.
  try {
    await waitHealthy(t, 60_000);
  } catch {
    done.push(...(await reinitStuck(t)).map((m) => `reinitialize ${m}`));
  }
  return done;
}

export async function status(t: Topology): Promise<object> {
  const members = (await patroniCluster(t))?.members ?? [];
  const etcd = await Promise.all(
    dbHosts(t).map(async (h) => ({
      host: h.name,
      healthy: !!(await http(`http://${h.ip}:${PORTS.etcdClient}/health`))?.body.includes('true'),
    })),
  );
  const gateways = await Promise.all(
    gatewayHosts(t).map(async (h) => ({
      host: h.name,
      pid: daemonPid(t, gatewayKey(h)),
      ready: (await http(`http://${h.ip}:${PORTS.gateway}/readyz`))?.status === 200,
    })),
  );
  const lb = await http(`http://127.0.0.1:${t.lbPort}/readyz`);
  return {
    patroni: members.map((m) => ({ name: m.name, role: m.role, state: m.state, timeline: m.timeline, lag: m.lag })),
    etcd,
    gateways,
    loadBalancer: { url: `http://127.0.0.1:${t.lbPort}`, status: lb?.status ?? null },
  };
}

/** CPU (cores busy, averaged over `seconds`) and resident memory of every process of the cluster. */
export async function usage(
  t: Topology,
  seconds: number,
): Promise<{ cores: number; rssMb: number; processes: number }> {
  const pids = () => [...t.hosts.flatMap(pidsIn), daemonPid(t, 'lb')].filter((p): p is number => p !== null);
  const ticks = (pid: number) => {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      return Number(rest[11]) + Number(rest[12]);
    } catch {
      return 0;
    }
  };
  const rss = (pid: number) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  };
  const before = new Map(pids().map((p) => [p, ticks(p)]));
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const now = pids();
  const used = now.reduce((sum, p) => sum + ticks(p) - (before.get(p) ?? ticks(p)), 0);
  // /proc counts CPU time in clock ticks of 1/100 s on Linux.
  return {
    cores: Number((used / 100 / seconds).toFixed(2)),
    rssMb: Math.round(now.reduce((sum, p) => sum + rss(p), 0)),
    processes: now.length,
  };
}

/** Stops everything the cluster started and removes its namespaces, interfaces and directory. */
export async function down(t: Topology): Promise<string[]> {
  const pids = [...t.hosts.flatMap(pidsIn), daemonPid(t, 'lb')].filter((p): p is number => p !== null);
  for (const p of pids) if (alive(p)) process.kill(p, 'SIGTERM');
  const stubborn = await waitDead(pids, 5_000);
  for (const p of stubborn) if (alive(p)) process.kill(p, 'SIGKILL');
  await waitDead(stubborn, 5_000);
  removeNetwork(t);
  fs.rmSync(t.dir, { recursive: true, force: true });
  const left = leftovers(t);
  if (fs.existsSync(t.dir)) left.push(`directory ${t.dir}`);
  if (await portInUse(t.lbPort)) left.push(`port ${t.lbPort}`);
  return left;
}

async function portInUse(port: number): Promise<boolean> {
  return (await http(`http://127.0.0.1:${port}/`, { timeoutMs: 500 })) !== null;
}

/** The last lines of every daemon's log (what a failed test prints before tearing the cluster down). */
export function logsTail(t: Topology, lines: number): string {
  const dir = path.join(t.dir, 'logs');
  if (!fs.existsSync(dir)) return '';
  return fs
    .readdirSync(dir)
    .map((f) => `--- ${f}\n${fs.readFileSync(path.join(dir, f), 'utf8').split('\n').slice(-lines).join('\n')}`)
    .join('\n');
}

export { logFile, PG_BIN, gatewayHosts, dbHosts };
