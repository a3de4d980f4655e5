// `npm start`: the gateway. With KARIBCHE_WORKERS > 1 (PostgreSQL) a primary process forks the
// workers, which share the port (node:cluster) and each run the whole gateway, background work
// included (it is safe with any number of processes); the primary replaces a worker that dies and
// stops them all gracefully on SIGTERM/SIGINT.
import cluster, { type Worker } from 'node:cluster';
import type { BootstrapResult } from './admin/bootstrap.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createGateway } from './gateway.ts';

const SHUTDOWN_LIMIT_MS = 15_000;

/**
 * The human banner goes to stderr, so that stdout is the JSON log stream alone (a log shipper reads
 * it unmixed); the same facts, without secrets, are also one log line.
 */
function banner(config: Config, database: string, b: BootstrapResult | null, workers: number, log?: { info(o: object, msg: string): void }): void {
  const lines = ['', `Karibche ${config.mode} gateway on ${config.publicUrl} (database: ${database}, workers: ${workers})`, `  API reference  ${config.publicUrl}/docs`];
  if (b?.adminTokenFile) lines.push(`  admin token    ${b.adminTokenFile}`);
  if (b?.demo) {
    lines.push(`  demo merchant  ${b.demoFile}${b.demoCreated ? ' (created now)' : ''}`);
    lines.push(JSON.stringify({ credentials: b.demo }, null, 2));
  }
  try {
    process.stderr.write(`${lines.join('\n')}\n\n`);
  } catch {
    // A terminal that went away must not stop the gateway.
  }
  log?.info({ event: 'gateway.started', mode: config.mode, url: config.publicUrl, database, workers, demoMerchant: b?.demo?.clientId ?? null }, 'gateway started');
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
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    setTimeout(() => {
      log.error('shutdown took over 15 s; exiting');
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    await gw.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // A worker whose primary is gone (killed) stops too, rather than serve unsupervised.
  if (cluster.isWorker) process.on('disconnect', () => void stop('primary exited'));
  await gw.app.listen({ port: config.port, host: config.host });
  if (cluster.isWorker) process.send!({ type: 'ready', bootstrap: gw.bootstrap });
  else banner(config, gw.services.db.kind, gw.bootstrap, 1, log);
}

async function runPrimary(config: Config): Promise<void> {
  let stopping = false;
  let printed = false;
  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.on('message', (msg: { type?: string; bootstrap?: BootstrapResult | null }) => {
      if (msg?.type === 'ready' && !printed) {
        printed = true;
        banner(config, 'postgres', msg.bootstrap ?? null, config.workers);
      }
    });
    return worker;
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    process.stderr.write(`karibche: worker ${worker.process.pid} exited (${signal ?? code}); starting a replacement\n`);
    fork();
  });
  for (let i = 0; i < config.workers; i++) fork();

  const stop = () => {
    if (stopping) return;
    stopping = true;
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());
    setTimeout(() => process.exit(1), SHUTDOWN_LIMIT_MS + 2_000).unref();
    let left = alive.length;
    if (left === 0) process.exit(0);
    for (const w of alive) {
      w.once('exit', () => {
        if (--left === 0) process.exit(0);
      });
      w.process.kill('SIGTERM');
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.workers > 1 && cluster.isPrimary) await runPrimary(config);
  else await runGateway(config);
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`karibche: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`karibche: failed to start: ${err?.stack ?? err}\n`);
  process.exit(1);
});
