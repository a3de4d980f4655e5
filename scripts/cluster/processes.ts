// Daemons of the cluster: started detached inside their host's namespace (as the postgres user where
// PostgreSQL runs), each with a log file and a pid file under the cluster's directory, so that any
// later command — another shell, a test — can find, kill and restart them.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { processAlive } from '../../src/testing/process-alive.ts';
import type { Host, Topology } from './topology.ts';

export interface DaemonSpec {
  /** e.g. etcd@db1, patroni@db2, router@gw1, gateway@gw3, lb. */
  key: string;
  host: Host | null;
  cmd: string;
  args: string[];
  env?: Record<string, string>;
  /** Run as this user (PostgreSQL refuses to run as root). */
  user?: string;
}

const pidFile = (t: Topology, key: string) => path.join(t.dir, 'pids', key);
export const logFile = (t: Topology, key: string) => path.join(t.dir, 'logs', `${key}.log`);

export function startDaemon(t: Topology, d: DaemonSpec): number {
  fs.mkdirSync(path.join(t.dir, 'pids'), { recursive: true });
  fs.mkdirSync(path.join(t.dir, 'logs'), { recursive: true });
  const log = fs.openSync(logFile(t, d.key), 'a');
  const asUser = d.user ? ['setpriv', `--reuid=${d.user}`, `--regid=${d.user}`, '--init-groups', '--reset-env'] : [];
  // setpriv --reset-env drops the environment: hand it back explicitly.
  const envArgs = d.user
    ? ['env', ...Object.entries({ PATH: process.env.PATH ?? '/usr/bin:/bin', ...d.env }).map(([k, v]) => `${k}=${v}`)]
    : [];
  const argv = [...(d.host ? ['ip', 'netns', 'exec', d.host.ns] : []), ...asUser, ...envArgs, d.cmd, ...d.args];
  // The cluster's own directory as the working directory: the postgres user must be able to enter
  // it (Patroni's workers chdir to it; a clone in a private temp dir made them fail in CI).
  const child = spawn(argv[0]!, argv.slice(1), {
    detached: true,
    cwd: t.dir,
    stdio: ['ignore', log, log],
    env: { ...process.env, ...d.env },
  });
  fs.closeSync(log);
  child.unref();
  if (!child.pid) throw new Error(`${d.key}: did not start`);
  fs.writeFileSync(pidFile(t, d.key), String(child.pid));
  fs.writeFileSync(path.join(t.dir, 'pids', `${d.key}.spec.json`), JSON.stringify(d));
  return child.pid;
}

export function daemonPid(t: Topology, key: string): number | null {
  try {
    const pid = Number(fs.readFileSync(pidFile(t, key), 'utf8'));
    return alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

export const alive = processAlive;

/** SIGKILLs a daemon (a crash, as the fault injector means it); true when it was running. */
export function killDaemon(t: Topology, key: string, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  const pid = daemonPid(t, key);
  if (pid === null) return false;
  process.kill(pid, signal);
  return true;
}

/** Starts a daemon again exactly as it was started (its spec was saved with its pid). */
export function restartDaemon(t: Topology, key: string): number {
  const spec = JSON.parse(fs.readFileSync(path.join(t.dir, 'pids', `${key}.spec.json`), 'utf8')) as DaemonSpec;
  return startDaemon(t, spec);
}

export async function waitDead(pids: number[], ms: number): Promise<number[]> {
  const end = Date.now() + ms;
  let left = pids.filter(alive);
  while (left.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    left = left.filter(alive);
  }
  return left;
}
