// `npm start`: the gateway. With KARIBCHE_WORKERS > 1 (PostgreSQL) a primary process forks the
// workers, which share the port (node:cluster) and each run the whole gateway, background work
// included (it is safe with any number of processes); the primary replaces a worker that dies and
// stops them all gracefully on SIGTERM/SIGINT.
import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import type { BootstrapResult } from './admin/bootstrap.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createGateway } from './gateway.ts';
import { abandonLogs, createLogger, forwardLogs, releaseLogs } from './logger.ts';
import { checkPortFree, listenError } from './ops/port-check.ts';
import { DEFAULT_DATA_DIR } from './store/data-dir.ts';
import { MigrationHistoryError } from './store/migration-history.ts';

/**
 * Every way of stopping ends within this, the whole process tree included: a gateway gives up
 * finishing its work 2 s before it (time to exit), and a cluster primary kills the workers still
 * alive 1 s before it.
 */
const SHUTDOWN_LIMIT_MS = 15_000;
const GATEWAY_GIVES_UP_MS = SHUTDOWN_LIMIT_MS - 2_000;
const PRIMARY_GIVES_UP_MS = SHUTDOWN_LIMIT_MS - 1_000;
/** Worker deaths counted over this window to tell a crash loop from bad luck. */
const CRASH_WINDOW_MS = 60_000;
/** The longest wait before replacing a worker that keeps dying. */
const MAX_RESTART_DELAY_MS = 30_000;

// A terminal or pipe that went away must not end the process: an 'error' (EPIPE) on process.stdout
// or process.stderr without a listener is an uncaught exception, and Node itself writes warnings
// there. Logs go through their own stream (logger.ts); what is written here is lost.
// Touching process.stdout also opens a piped stdout as a libuv pipe, which makes it non-blocking:
// the log stream's writes then meet a full pipe with EAGAIN (retried, bounded) rather than with a
// thread blocked in write() for as long as nobody reads, which Node would wait for at exit.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

/** A line for a person at a terminal; nothing when nobody reads stderr any more. */
function tellTerminal(text: string): void {
  try {
    process.stderr.write(text);
  } catch {
    // Destroyed stream: the error listener above took the first failure.
  }
}

/**
 * The human banner goes to stderr, so that stdout is the JSON log stream alone (a log shipper reads
 * it unmixed); the same facts, without secrets, are also one log line.
 */
function banner(
  config: Config,
  database: string,
  b: BootstrapResult | null,
  workers: number,
  log: { info(o: object, msg: string): void },
): void {
  const lines = [
    '',
    `Karibche ${config.mode} gateway on ${config.publicUrl} (database: ${database}, workers: ${workers})`,
    `  docs           ${config.publicUrl}/docs`,
  ];
  if (b?.adminTokenFile) lines.push(`  admin token    ${b.adminTokenFile}`);
  if (b?.demo) {
    lines.push(`  demo merchant  ${b.demoFile}${b.demoCreated ? ' (created now)' : ''}`);
    lines.push(JSON.stringify({ credentials: b.demo }, null, 2));
  }
  if (b?.dashboard)
    lines.push(`  dashboard      ${config.publicUrl}/dashboard  (${b.dashboard.email} / ${b.dashboard.password})`);
  lines.push(...rotationLines(b));
  // Request logs follow on the terminal and scroll this away; the files stay, and the CLI reads them.
  if (b?.demo) lines.push(`  shown again    ${credentialsCommand(config)}`);
  tellTerminal(`${lines.join('\n')}\n\n`);
  log.info(
    {
      event: 'gateway.started',
      mode: config.mode,
      url: config.publicUrl,
      database,
      workers,
      demoMerchant: b?.demo?.clientId ?? null,
    },
    'gateway started',
  );
}

/** The command that prints the banner's credentials again, with the variables this start differs in. */
function credentialsCommand(config: Config): string {
  const env = [
    ...(path.resolve(config.dataDir) === path.resolve(DEFAULT_DATA_DIR) ? [] : [`KARIBCHE_DATA_DIR=${config.dataDir}`]),
    ...(config.publicUrl === 'http://127.0.0.1:8080' ? [] : [`KARIBCHE_URL=${config.publicUrl}`]),
  ];
  return [...env, 'npx karibche credentials'].join(' ');
}

/** What a start re-issued, for the banner: the old credential no longer works. */
function rotationLines(b: BootstrapResult | null | undefined): string[] {
  return (b?.rotated ?? []).map((r) => `  ROTATED        ${r.credential} issued anew: ${r.reason}`);
}

/** One gateway in this process; in a cluster it reports to the primary instead of printing. */
async function runGateway(config: Config): Promise<void> {
  const gw = await createGateway(config);
  const log = gw.services.log;
  // Handlers first: a signal that arrives while the server starts still shuts down cleanly.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // The limit is armed before anything else, a log line included.
    setTimeout(() => {
      log.error({ limitMs: GATEWAY_GIVES_UP_MS }, 'shutdown did not finish in time; exiting');
      abandonLogs();
      process.exit(1);
    }, GATEWAY_GIVES_UP_MS).unref();
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    await gw.close();
    log.info('stopped');
    await releaseLogs();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // A worker whose primary is gone (killed) stops too, rather than serve unsupervised.
  if (cluster.isWorker) process.on('disconnect', () => void stop('primary exited'));
  try {
    await gw.app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await gw.close().catch(() => {});
    throw listenError(err, config.host, config.port);
  }
  if (cluster.isWorker) process.send!({ type: 'ready', bootstrap: gw.bootstrap });
  else banner(config, gw.services.db.kind, gw.bootstrap, 1, log);
}

async function runPrimary(config: Config): Promise<void> {
  // The primary serves nothing; it logs what it does to the same JSON stream as the workers.
  const log = createLogger(config.logLevel);
  // Workers write to pipes the primary reads, not to the primary's stdout and stderr: a process
  // forked with inherited stdio puts them back into blocking mode for every process sharing them
  // (libuv's child setup), and a write blocked on a pipe nobody reads never lets its process exit.
  cluster.setupPrimary({ stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const taken = new Map<Worker, Promise<unknown>>();
  let stopping = false;
  let printed = false;
  /** Replacements started lately: a worker that keeps dying is replaced ever more slowly. */
  const replacements: number[] = [];
  const fork = (): Worker => {
    const worker = cluster.fork();
    const stderr = worker.process.stderr!;
    stderr.on('data', (d: Buffer) => tellTerminal(d.toString()));
    taken.set(worker, Promise.all([forwardLogs(worker.process.stdout!), new Promise((r) => stderr.once('close', r))]));
    worker.on('message', (msg: { type?: string; bootstrap?: BootstrapResult | null }) => {
      if (msg?.type !== 'ready') return;
      if (!printed) {
        printed = true;
        banner(config, 'postgres', msg.bootstrap ?? null, config.workers, log);
      } else if (msg.bootstrap?.rotated.length) {
        // Workers start together and one of them re-issues; it may not be the first one ready.
        tellTerminal(`${rotationLines(msg.bootstrap).join('\n')}\n`);
      }
    });
    return worker;
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    void taken.get(worker)?.then(() => taken.delete(worker));
    // No worker has ever started (a refused database, a bad setting, a migration history this code
    // refuses): every replacement would fail the same way, forever. The gateway stops, as a single
    // process does, with the worker's exit status (2: the operator's to fix), its error already on
    // stderr.
    if (!printed) {
      log.error(
        { event: 'worker.start_failed', workerPid: worker.process.pid, code, signal },
        'a worker failed to start; stopping the gateway',
      );
      stop('a worker failed to start', code === 2 ? 2 : 1);
      return;
    }
    const now = Date.now();
    while (replacements.length && replacements[0]! < now - CRASH_WINDOW_MS) replacements.shift();
    replacements.push(now);
    // Three deaths a minute are bad luck; more are a crash loop: wait 1, 2, 4 … 30 s before the next.
    const delayMs = replacements.length > 3 ? Math.min(MAX_RESTART_DELAY_MS, 1000 * 2 ** (replacements.length - 4)) : 0;
    log.warn(
      { event: 'worker.exited', workerPid: worker.process.pid, code, signal, restartInMs: delayMs },
      `worker ${worker.process.pid} exited; starting a replacement${delayMs ? ` in ${delayMs / 1000} s` : ''}`,
    );
    // Not unref'd: with every worker dead, this timer is what keeps the primary alive to replace them.
    setTimeout(() => {
      if (!stopping) fork();
    }, delayMs);
  });
  for (let i = 0; i < config.workers; i++) fork();

  const exit = async (code: number) => {
    await releaseLogs();
    process.exit(code);
  };
  const stop = (signal: string, status = 0) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: stopping the workers');
    const alive = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());
    // A worker that has not exited by now is killed: the process tree ends within the limit.
    setTimeout(() => {
      const left = alive();
      log.error({ workers: left.map((w) => w.process.pid) }, 'workers did not stop in time; killing them');
      for (const w of left) w.process.kill('SIGKILL');
      abandonLogs();
      process.exit(1);
    }, PRIMARY_GIVES_UP_MS).unref();
    // Done when every worker has exited and its last log lines have been taken.
    const workers = alive();
    for (const w of workers) w.process.kill('SIGTERM');
    void Promise.all(
      workers.map((w) => Promise.all([new Promise((r) => (w.isDead() ? r(null) : w.once('exit', r))), taken.get(w)])),
    ).then(() => exit(status));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(): Promise<void> {
  const config = loadConfig();
  // Before anything is opened or written (a cluster's workers share the port their primary checked).
  if (cluster.isPrimary) await checkPortFree(config.host, config.port);
  if (config.workers > 1 && cluster.isPrimary) await runPrimary(config);
  else await runGateway(config);
}

main().catch((err) => {
  // A refused database is the operator's to resolve, like a bad setting: the problem, no stack.
  if (err instanceof ConfigError || err instanceof MigrationHistoryError) {
    tellTerminal(`karibche: ${err.message}\n`);
    process.exit(2);
  }
  tellTerminal(`karibche: failed to start: ${err?.stack ?? err}\n`);
  process.exit(1);
});
