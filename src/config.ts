import { isIP } from 'node:net';
import { availableParallelism, hostname, networkInterfaces } from 'node:os';
import path from 'node:path';
import { parseAmount } from './payments/money.ts';
import { VACUUM_MODES, type VacuumMode } from './store/vacuum.ts';

export type Mode = 'sandbox' | 'production';

export interface Config {
  mode: Mode;
  port: number;
  host: string;
  /** Base of every link we hand out (no trailing slash). */
  publicUrl: string;
  dataDir: string;
  /** PostgreSQL connection string; when absent the embedded PGlite in dataDir is used. */
  databaseUrl: string | undefined;
  /** A session connection to PostgreSQL itself for LISTEN, when DATABASE_URL leads to a transaction pooler. */
  databaseDirectUrl: string | undefined;
  /** Named prepared statements on PostgreSQL: `auto` names them unless DATABASE_URL leads to a pooler. */
  dbStatements: 'auto' | 'named' | 'unnamed';
  dbPoolSize: number;
  /** How long one database statement may go unanswered before the request gets a 503 (a primary that vanished). */
  dbQueryTimeoutMs: number;
  /** Create's group commit: insert statements in flight at once (0 = every create its own statement). */
  createBatchConcurrency: number;
  /** Group commit of single-statement state changes: transactions in flight at once (0 = each statement its own). */
  groupCommitConcurrency: number;
  /** Connections of the shared reads (PostgreSQL; 0 = each read on the pool, as any statement). */
  sharedReadConnections: number;
  /** name=value server settings of the embedded PGlite instead of its memory-sized defaults. */
  pgliteSettings: string[] | undefined;
  /**
   * Whether the gateway vacuums and analyses its tables itself (src/store/vacuum.ts): `auto` on
   * PGlite, which has no autovacuum, and on a PostgreSQL server whose autovacuum is off; `on`, `off`.
   */
  vacuum: VacuumMode;
  /** How often its tables are checked against autovacuum's thresholds when it does. */
  vacuumIntervalMs: number;
  /** Extra product segments that mount the merchant API besides `gateway` (e.g. `tpay`). */
  pathAliases: string[];
  adminToken: string | undefined;
  maxAmountMinor: number;
  bankCode: string;
  timeZone: string;
  maxAttempts: number;
  logLevel: string;
  /** How often background work (expiry sweep, clock refresh) runs. */
  sweepIntervalMs: number;
  tokenTtlSeconds: number;
  /** Failed access-token attempts per client_id (and per IP) within the window before 429. */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
  /** Access-token requests per source address per minute, whatever their outcome. */
  tokenRequestsPerMinute: number;
  /** Delay the acquirer simulator adds to every call. */
  simLatencyMs: number;
  /** A payment Processing for this long is settled by asking the acquirer. */
  reconcileAfterSeconds: number;
  /** Payment attempts (checkout submissions) per source address per minute. */
  checkoutAttemptsPerMinute: number;
  /** A merchant must answer a callback within this long. */
  callbackTimeoutMs: number;
  /** Callbacks in flight per process. */
  callbackConcurrency: number;
  /** Polling interval of the dispatcher (notifications wake it sooner). */
  callbackPollMs: number;
  /** An open event stream sends a keep-alive comment, and re-reads the feed as a safety net, this often. */
  eventStreamKeepAliveMs: number;
  /** Local address outgoing callbacks are sent from (what merchants allow-list). */
  callbackLocalAddress: string | undefined;
  /** The source addresses published to merchants for their allow-lists. */
  callbackSourceAddresses: string[];
  /** How long a cancel or completion waits behind another of its kind on the same payment before 409. */
  operationWaitMs: number;
  /** Gateway worker processes sharing the port (PostgreSQL only; PGlite allows one process). */
  workers: number;
  /** The ES module of the real acquirer connector (required in production; sandbox: the simulator). */
  acquirerModule: string | undefined;
  /** A dashboard session ends after this long without a request (real time)… */
  dashboardIdleMinutes: number;
  /** …and this long after sign-in, whatever happens. */
  dashboardSessionHours: number;
  /** Dashboard sign-in attempts per source address per minute, whatever their outcome (flood guard). */
  dashboardSignInsPerMinute: number;
}

export class ConfigError extends Error {}

/** True when the database of `url` runs on this machine (loopback, a Unix socket, or one of its own names or addresses). */
export function isLocalDatabase(url: string): boolean {
  let host: string;
  try {
    const u = new URL(url);
    host = decodeURIComponent(u.hostname).replace(/^\[|\]$/g, '') || u.searchParams.get('host') || '';
  } catch {
    return false;
  }
  if (
    host === '' ||
    host.startsWith('/') ||
    host === 'localhost' ||
    host === hostname() ||
    /^127\./.test(host) ||
    host === '::1'
  )
    return true;
  return Object.values(networkInterfaces()).some((addrs) => addrs?.some((a) => a.address === host));
}

/**
 * Gateway processes by default (docs/performance.md has the measurements). PGlite allows one. With
 * PostgreSQL on the same machine the database needs about as much CPU as the gateway (lifecycle:
 * PostgreSQL 0.8 cores, gateway 0.6); on 2 cores one worker needed 8–16% less CPU per request than
 * two, had the better p99 in 5 of 6 alternating runs and the higher throughput in 4 of 6, in a third
 * of the memory: one worker per two cores. A database elsewhere leaves every core to the gateway:
 * one worker per core (not measurable on the 2-core machine of these figures).
 */
export function defaultWorkers(databaseUrl: string | undefined, cores = availableParallelism()): number {
  if (!databaseUrl) return 1;
  return isLocalDatabase(databaseUrl) ? Math.max(1, Math.floor(cores / 2)) : cores;
}

function int(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** One of `values`; unset or empty: the first. */
function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[]): T {
  const raw = env[name] || values[0]!;
  if (!(values as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}, got "${raw}"`);
  return raw as T;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mode = (env.KARIBCHE_MODE ?? 'sandbox') as Mode;
  if (mode !== 'sandbox' && mode !== 'production')
    throw new ConfigError(`KARIBCHE_MODE must be sandbox or production, got "${mode}"`);
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const publicUrl = (env.KARIBCHE_PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  if (!URL.canParse(publicUrl)) throw new ConfigError(`KARIBCHE_PUBLIC_URL is not a URL: "${publicUrl}"`);

  const maxAmount = parseAmount(env.KARIBCHE_MAX_AMOUNT ?? '1000000.00');
  if (!maxAmount.ok || maxAmount.minor <= 0)
    throw new ConfigError('KARIBCHE_MAX_AMOUNT must be a positive amount with at most two decimals');

  const bankCode = (env.KARIBCHE_BANK_CODE ?? 'KB').toUpperCase();
  if (!/^[A-Z]{2}$/.test(bankCode))
    throw new ConfigError('KARIBCHE_BANK_CODE must be two letters (the bank code of a GE IBAN)');

  const timeZone = env.KARIBCHE_TIMEZONE || 'Asia/Tbilisi';
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    throw new ConfigError(`KARIBCHE_TIMEZONE is not a known time zone: "${timeZone}"`);
  }

  const adminToken = env.KARIBCHE_ADMIN_TOKEN || undefined;
  if (mode === 'production' && (!adminToken || adminToken.length < 24)) {
    throw new ConfigError('production mode requires KARIBCHE_ADMIN_TOKEN (at least 24 characters) in the environment');
  }
  const pathAliases = (env.KARIBCHE_PATH_ALIASES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const a of pathAliases) {
    if (!/^[a-z0-9-]+$/i.test(a))
      throw new ConfigError(`KARIBCHE_PATH_ALIASES entry "${a}" must be a plain path segment`);
  }

  const callbackLocalAddress = env.KARIBCHE_CALLBACK_LOCAL_ADDRESS || undefined;
  if (callbackLocalAddress && isIP(callbackLocalAddress) === 0)
    throw new ConfigError(`KARIBCHE_CALLBACK_LOCAL_ADDRESS is not an IP address: "${callbackLocalAddress}"`);
  const callbackSourceAddresses = (env.KARIBCHE_CALLBACK_SOURCE_ADDRESSES ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  for (const a of callbackSourceAddresses)
    if (isIP(a) === 0) throw new ConfigError(`KARIBCHE_CALLBACK_SOURCE_ADDRESSES entry "${a}" is not an IP address`);

  const databaseUrl = env.DATABASE_URL || undefined;
  const databaseDirectUrl = env.KARIBCHE_DATABASE_DIRECT_URL || undefined;
  if (databaseDirectUrl && !databaseUrl)
    throw new ConfigError(
      'KARIBCHE_DATABASE_DIRECT_URL needs DATABASE_URL: it is the session connection beside a pooled one',
    );
  const dbStatements = oneOf(env, 'KARIBCHE_DB_STATEMENTS', ['auto', 'named', 'unnamed'] as const);
  const pgliteSettings = env.KARIBCHE_PGLITE_SETTINGS
    ? env.KARIBCHE_PGLITE_SETTINGS.split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : undefined;
  for (const x of pgliteSettings ?? [])
    if (!/^[a-z_]+=[\w.]+$/.test(x))
      throw new ConfigError(`KARIBCHE_PGLITE_SETTINGS entry "${x}" must be name=value (e.g. shared_buffers=32MB)`);
  const workers = int(env, 'KARIBCHE_WORKERS', defaultWorkers(databaseUrl), 1, 64);
  if (workers > 1 && !databaseUrl)
    throw new ConfigError('KARIBCHE_WORKERS > 1 needs DATABASE_URL: the embedded PGlite allows one process');

  return {
    mode,
    port,
    host,
    publicUrl,
    dataDir: path.resolve(env.KARIBCHE_DATA_DIR || './data'),
    databaseUrl,
    databaseDirectUrl,
    dbStatements,
    dbPoolSize: int(env, 'KARIBCHE_DB_POOL', 20, 1, 500),
    dbQueryTimeoutMs: int(env, 'KARIBCHE_DB_QUERY_TIMEOUT_MS', 10_000, 1_000, 600_000),
    createBatchConcurrency: int(env, 'KARIBCHE_CREATE_BATCH_CONCURRENCY', databaseUrl ? 2 : 1, 0, 100),
    groupCommitConcurrency: int(env, 'KARIBCHE_GROUP_COMMIT_CONCURRENCY', databaseUrl ? 4 : 1, 0, 100),
    sharedReadConnections: int(env, 'KARIBCHE_SHARED_READS', databaseUrl ? 2 : 1, 0, 100),
    pgliteSettings,
    vacuum: oneOf(env, 'KARIBCHE_VACUUM', VACUUM_MODES),
    // KARIBCHE_PGLITE_VACUUM_INTERVAL_MS: its former name, from when only PGlite was vacuumed.
    vacuumIntervalMs: int(
      env,
      env.KARIBCHE_VACUUM_INTERVAL_MS ? 'KARIBCHE_VACUUM_INTERVAL_MS' : 'KARIBCHE_PGLITE_VACUUM_INTERVAL_MS',
      10_000,
      100,
      3_600_000,
    ),
    pathAliases: pathAliases.filter((a) => a !== 'gateway'),
    adminToken,
    maxAmountMinor: maxAmount.minor,
    bankCode,
    timeZone,
    maxAttempts: int(env, 'KARIBCHE_MAX_ATTEMPTS', 3, 1, 20),
    logLevel: env.LOG_LEVEL || 'info',
    sweepIntervalMs: int(env, 'KARIBCHE_SWEEP_INTERVAL_MS', 1000, 10, 3_600_000),
    tokenTtlSeconds: int(env, 'KARIBCHE_TOKEN_TTL_SECONDS', 86_400, 60, 30 * 86_400),
    authFailureLimit: int(env, 'KARIBCHE_AUTH_FAILURE_LIMIT', 10, 1, 1_000_000),
    authFailureWindowSeconds: int(env, 'KARIBCHE_AUTH_FAILURE_WINDOW_SECONDS', 300, 1, 86_400),
    tokenRequestsPerMinute: int(env, 'KARIBCHE_TOKEN_REQUESTS_PER_MINUTE', 300, 1, 1_000_000),
    simLatencyMs: int(env, 'KARIBCHE_SIM_LATENCY_MS', 0, 0, 120_000),
    reconcileAfterSeconds: int(env, 'KARIBCHE_RECONCILE_AFTER_SECONDS', 60, 1, 86_400),
    checkoutAttemptsPerMinute: int(env, 'KARIBCHE_CHECKOUT_ATTEMPTS_PER_MINUTE', 30, 1, 1_000_000),
    callbackTimeoutMs: int(env, 'KARIBCHE_CALLBACK_TIMEOUT_MS', 10_000, 100, 120_000),
    callbackConcurrency: int(env, 'KARIBCHE_CALLBACK_CONCURRENCY', 128, 1, 1000),
    callbackPollMs: int(env, 'KARIBCHE_CALLBACK_POLL_MS', 1000, 10, 60_000),
    eventStreamKeepAliveMs: int(env, 'KARIBCHE_EVENT_STREAM_KEEPALIVE_MS', 15_000, 50, 300_000),
    callbackLocalAddress,
    callbackSourceAddresses,
    operationWaitMs: int(env, 'KARIBCHE_OPERATION_WAIT_MS', 10_000, 100, 120_000),
    workers,
    acquirerModule: env.KARIBCHE_ACQUIRER_MODULE || undefined,
    dashboardIdleMinutes: int(env, 'KARIBCHE_DASHBOARD_IDLE_MINUTES', 30, 1, 1440),
    dashboardSessionHours: int(env, 'KARIBCHE_DASHBOARD_SESSION_HOURS', 12, 1, 720),
    dashboardSignInsPerMinute: int(env, 'KARIBCHE_DASHBOARD_SIGN_INS_PER_MINUTE', 30, 1, 1_000_000),
  };
}
