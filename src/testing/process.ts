// The gateway as a real child process (src/main.ts, compiled once by the test runner or through tsx), for
// the tests that kill, restart or cut off a whole process.
import { spawn, type ChildProcess } from 'node:child_process';

/** KARIBCHE_DB_POOL of a gateway process a test starts (unless the test sets its own). */
export const PROCESS_POOL_SIZE = 4;
/**
 * Its group commit's transactions in flight, each a connection of its own (4 in production; one
 * still groups every statement that arrives while it is busy): with the pool, the dispatcher's 2
 * and LISTEN, 8 connections a process, as before the group commit had its own, so that a file
 * running three (test/reliability/processes.test.ts: 34 with the defaults, 28 with 2) stays well
 * within its budget of 30.
 */
export const PROCESS_GROUP_COMMIT = 1;
/** Its shared reads' connections (2 in production): one more connection per process. */
export const PROCESS_SHARED_READS = 1;

export interface GatewayProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * node's arguments to start the gateway: `bundle`, else the runner's compiled src/main.ts
 * (KARIBCHE_TEST_GATEWAY_BUNDLE, scripts/test.mjs), else src/main.ts through tsx (a file run on
 * its own), which costs every start the loader and the transpiling again.
 */
export function gatewayArgs(bundle = process.env.KARIBCHE_TEST_GATEWAY_BUNDLE): string[] {
  return bundle ? [bundle] : ['--import', 'tsx', 'src/main.ts'];
}

/**
 * Starts src/main.ts (or, given `bundle`, the main.mjs that `npm start` builds) with env over this
 * process's environment; resolves once it listens.
 */
export async function startGatewayProcess(
  env: Record<string, string>,
  opts: { bundle?: string; timeoutMs?: number } = {},
): Promise<GatewayProcess> {
  // Only a hang misses it: a start through tsx on a saturated machine can take a minute.
  const timeoutMs = opts.timeoutMs ?? 120_000;
  let out = '';
  // A small pool (plus one LISTEN connection) per process: test files share the server's connections.
  const child = spawn(process.execPath, gatewayArgs(opts.bundle), {
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      KARIBCHE_DB_POOL: String(PROCESS_POOL_SIZE),
      KARIBCHE_GROUP_COMMIT_CONCURRENCY: String(PROCESS_GROUP_COMMIT),
      KARIBCHE_SHARED_READS: String(PROCESS_SHARED_READS),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  // The banner comes last in both modes (in a cluster, after a worker reports ready).
  while (!out.includes(' gateway on ')) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`gateway exited: ${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gateway did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    output: () => out,
    exited,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
