// Composition of one gateway process: database, migrations, shared services, bootstrap, the HTTP
// app and the background loop; close() undoes it in order.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { bootstrapSandbox, type BootstrapResult } from './admin/bootstrap.ts';
import { TokenService } from './api/tokens.ts';
import { buildApp } from './app.ts';
import { Clock } from './clock.ts';
import { ConfigError, type Config } from './config.ts';
import { createLogger } from './logger.ts';
import { MerchantDirectory } from './merchants/directory.ts';
import { Metrics } from './ops/metrics.ts';
import { GroupCommit } from './store/group-commit.ts';
import { SharedReads } from './store/shared-reads.ts';
import { batchedInserts } from './payments/create-batch.ts';
import { ExpirySweeper } from './payments/expiry.ts';
import { SharedClock } from './sandbox/clock-store.ts';
import type { Services } from './services.ts';
import type { Db } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import { openDatabase } from './store/open.ts';
import type { Acquirer } from './acquirer/acquirer.ts';
import { loadAcquirer } from './acquirer/connector.ts';
import { instrumentAcquirer } from './acquirer/instrumented.ts';
import { SimulatorAcquirer } from './acquirer/simulator.ts';
import { withSandboxFaults } from './sandbox/faults.ts';
import { startBackground } from './background.ts';
import { CallbackDispatcher } from './callbacks/dispatcher.ts';
import { selectCallbackBacklog } from './callbacks/store.ts';
import { sharedSecret } from './store/secrets.ts';
import { trackSilentConnections } from './ops/silent-connections.ts';

export interface GatewayOptions {
  /** Use this database instead of opening the configured one (it is then not closed by close()). */
  db?: Db;
  clock?: Clock;
  log?: Logger;
  /** Run the background jobs (expiry, reconciler, clock refresh, pruning); default true. */
  background?: boolean;
  /** The acquirer connector; default the module of KARIBCHE_ACQUIRER_MODULE, else (sandbox only) the simulator. */
  acquirer?: Acquirer;
}

export interface Gateway {
  app: FastifyInstance;
  services: Services;
  bootstrap: BootstrapResult | null;
  /** Stops background work, finishes in-flight requests, closes the database. */
  close(): Promise<void>;
}

export async function createGateway(config: Config, opts: GatewayOptions = {}): Promise<Gateway> {
  const log = opts.log ?? createLogger(config.logLevel);
  // Production moves real money: it never falls back to the simulator.
  if (config.mode === 'production' && !opts.acquirer && !config.acquirerModule) {
    throw new ConfigError(
      'production mode requires a real acquirer connector: set KARIBCHE_ACQUIRER_MODULE to its module (see docs/acquirer-connector.md)',
    );
  }
  // The connector is loaded before anything opens: a refusal leaves nothing to undo.
  const plugged =
    opts.acquirer ??
    (config.acquirerModule ? await loadAcquirer(config.acquirerModule, { mode: config.mode, log }) : null);
  // Not even handed in by code, nor returned by a connector module: production never runs the simulator.
  if (config.mode === 'production' && plugged instanceof SimulatorAcquirer) {
    throw new ConfigError(
      'production mode refuses the sandbox simulator as its acquirer: plug a real connector in (docs/acquirer-connector.md)',
    );
  }
  const db = opts.db ?? (await openDatabase(config, (err) => log.warn({ err }, 'idle database connection lost')));
  try {
    const applied = await migrate(db, undefined, {
      onRenumbered: (renumbered) => log.info({ renumbered }, 'migration history carried over to the gapless numbering'),
    });
    if (applied.length) log.info({ applied }, 'migrations applied');
    const clock = opts.clock ?? new Clock();
    const sharedClock = new SharedClock(db, clock, config.mode === 'sandbox');
    await sharedClock.start();
    const merchants = new MerchantDirectory(db);
    await merchants.start();
    const tokens = new TokenService(db, clock, config.tokenTtlSeconds);
    await tokens.start();
    const bootstrap = config.mode === 'sandbox' ? await bootstrapSandbox(db, config, clock) : null;
    // A start that re-issued a credential says so: whoever held the old one is now refused.
    for (const r of bootstrap?.rotated ?? []) {
      log.warn(
        {
          event: 'credentials.rotated',
          credential: r.credential,
          reason: r.reason,
          clientId: r.credential === 'adminToken' ? undefined : bootstrap!.demo?.clientId,
        },
        `${r.credential} issued anew: ${r.reason}`,
      );
    }
    const metrics = new Metrics();
    metrics.watchCallbackBacklog(() => selectCallbackBacklog(db, clock.now()));
    const poolStats = db.poolStats?.bind(db);
    if (poolStats) metrics.watchPool(poolStats);
    const sweeper = new ExpirySweeper(db, clock, { log, metrics });
    // One transaction for the concurrent single-statement state changes under load (issue 25).
    // Connections of its own, one per batch in flight (0: no grouping, each statement on the pool).
    const gc = config.groupCommitConcurrency;
    const groupCommit = new GroupCommit(gc > 0 ? db.ownPool(gc) : db, {
      concurrency: gc,
      maxBatch: 64,
    });
    metrics.watchGroupCommit(() => groupCommit);
    // The reads a request starts with, asked in the same turn, on shared connections in one write
    // (PostgreSQL; PGlite is one connection, where each statement runs in turn anyway).
    const reads = config.sharedReadConnections;
    const sharedReads =
      db.kind === 'postgres' && reads > 0
        ? new SharedReads(db.ownPool(reads), { concurrency: reads, maxBatch: 64 })
        : db;
    if (sharedReads instanceof SharedReads) metrics.watchSharedReads(() => sharedReads.sent);
    const connector = plugged ?? new SimulatorAcquirer(db, clock, config.simLatencyMs, groupCommit, sharedReads);
    // Merchants' faults on demand exist only in the sandbox.
    const acquirer = instrumentAcquirer(
      config.mode === 'sandbox' ? withSandboxFaults(connector, groupCommit, clock, sharedReads) : connector,
      metrics,
    );
    const checkoutSecret = await sharedSecret(db, 'checkout_secret');
    const callbacks = new CallbackDispatcher({ db, clock, config, merchants, metrics, log });
    const inserts = batchedInserts(db, config.createBatchConcurrency);
    metrics.watchPaymentInserts(() => inserts);
    const services: Services = {
      config,
      db,
      clock,
      sharedClock,
      merchants,
      tokens,
      sweeper,
      metrics,
      log,
      acquirer,
      checkoutSecret,
      callbacks,
      inserts,
      groupCommit,
      reads: sharedReads,
    };
    const draining = { value: false };
    const app = await buildApp(services, draining);
    await app.ready();
    const connections = trackSilentConnections(app.server);

    const background = opts.background === false ? null : startBackground(services);
    if (background) await callbacks.start();
    let closing: Promise<void> | null = null;
    return {
      app,
      services,
      bootstrap,
      close: () =>
        (closing ??= (async () => {
          await background?.stop();
          if (background) await callbacks.stop();
          // Node closes only the connections idle at close(); a keep-alive connection whose
          // in-flight request finishes later would hold the process, so sweep them until done,
          // with the connections that never sent a request (which Node does not count as idle).
          draining.value = true;
          const sweep = setInterval(() => {
            app.server.closeIdleConnections();
            connections.closeSilent();
          }, 100);
          try {
            await app.close();
          } finally {
            clearInterval(sweep);
          }
          if (!opts.db) await db.close();
        })()),
    };
  } catch (err) {
    if (!opts.db) await db.close().catch(() => {});
    throw err;
  }
}
