// The thin data-access layer. Everything above it speaks PostgreSQL SQL with $n parameters and
// works unchanged on the embedded PGlite and on a PostgreSQL server.

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  /**
   * `name` makes it a prepared statement on PostgreSQL (parsed and planned once per connection):
   * worth it for the hot statements; the SQL text of one name must never change.
   */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], name?: string): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Tells this process's listeners of `channel` once the work done through this Queryable is
   * committed: after COMMIT in a transaction, at once outside one (the statement committed when it
   * returned); never when it rolls back. Only this process hears it: a server NOTIFY takes a lock
   * that serialises the commits of every notifying transaction (measured: the lifecycle's first
   * wait, capping paid payments near 300/s) — other processes find the work by polling.
   */
  notifyOnCommit(channel: string, payload: string): void;
}

export type Notification = (payload: string) => void;

/** A few connections of their own, for statements, transactions and batches (Db.ownPool). */
export type OwnPool = Queryable & Pick<Db, 'tx' | 'batch' | 'together'>;

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** PostgreSQL reached through a connection pooler such as PgBouncer (statements are then unnamed). */
  readonly pooled?: boolean;
  /**
   * Runs fn in one transaction (READ COMMITTED); commits when it resolves, rolls back when it throws.
   * `patient`: no statement deadline (KARIBCHE_DB_QUERY_TIMEOUT_MS) — for migrations and the
   * bootstrap, whose advisory locks may rightly wait for another process's long migration.
   */
  tx<T>(fn: (q: Queryable) => Promise<T>, opts?: { patient?: boolean }): Promise<T>;
  /**
   * Independent statements in one transaction, sent together: `send` issues them on `q` at once
   * (each call's promise, none awaited before the next is issued), and on PostgreSQL BEGIN, they
   * and COMMIT leave in one write, pipelined — one round trip, whatever their number. Resolves to
   * what `send`'s promises resolved to, once committed; or rejects with the first failure, with
   * nothing of them written.
   */
  batch<T>(send: (q: Queryable) => Promise<T>[]): Promise<T[]>;
  /**
   * Independent statements, each committed on its own (no transaction), on ONE connection and in
   * one write on PostgreSQL, pipelined: `send` issues them on `q` at once and each caller hears its
   * own answer as soon as it arrives (a statement that fails fails alone). Resolves once every one
   * has settled; rejects only when no connection could be had (src/store/shared-reads.ts).
   */
  together(send: (q: Queryable) => Promise<unknown>[]): Promise<void>;
  /** Subscribes to a notification channel; other gateway processes see notify() too on PostgreSQL. */
  listen(channel: string, onMessage: Notification): Promise<void>;
  notify(channel: string, payload: string): Promise<void>;
  /**
   * A few connections of its own (PostgreSQL; PGlite is one connection and returns itself): for
   * work that must not queue behind the requests waiting for the shared pool under load — the
   * callback dispatcher, whose claims and records otherwise waited behind hundreds of requests
   * (measured: 2,000 callbacks pending at 400 lifecycles/s) — and the group commit of state
   * changes, whose batches waited behind them too. Closed with the Db.
   */
  ownPool(size: number): OwnPool;
  /** The connection pool now (PostgreSQL): connections open, idle, and requests waiting for one. */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

const READ_ONLY = '25006';

/** Error raised when the database cannot be reached; the API answers it with 503. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super('database unavailable', { cause });
  }
}

// 25006 (read-only transaction): the connection leads to a standby — in a replicated cluster, the
// old primary in the seconds after a switchover or failover, before the router (HAProxy on Patroni's
// health check) stops sending connections there. Nothing was written; the request may be retried.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  READ_ONLY,
]);

/** True for an error of a connection to a standby (read-only): that connection must be dropped. */
export function isReadOnly(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === READ_ONLY;
}

/** pg's client-side statement deadline (query_timeout) ran out. */
export function isTimedOut(err: unknown): boolean {
  return (err as { message?: unknown } | null)?.message === 'Query read timeout';
}

/** True for errors that mean "the database is not there right now" rather than a bug. */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(
    e.message ?? '',
  );
}

/**
 * Deadlock, serialisation failure or a lock not available: two transactions were in each other's
 * way and PostgreSQL rolled this one back. Nothing it did was kept, and the same request again will
 * most likely pass — a 503 to retry, not a 500. Each one is still a defect to look at (statements
 * that lock several rows lock them in one order: src/api/auth-failures-store.ts), so it is logged as an error.
 */
const CONFLICT_CODES = new Set(['40P01', '40001', '55P03']);

export function isConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONFLICT_CODES.has(code);
}

/**
 * The values of statements sent together, once all have answered; or the first failure in the
 * order they were sent — the cause: those after it only met the transaction it aborted.
 */
export async function firstFailure<T>(sent: readonly Promise<T>[]): Promise<T[]> {
  return (await Promise.allSettled(sent)).map((r) => {
    if (r.status === 'rejected') throw r.reason;
    return r.value;
  });
}

/**
 * What a transaction's statements ask to tell (notifyOnCommit), held until its COMMIT: `tellAll`
 * after the commit; never called when it rolls back.
 */
export function heldUntilCommit(tell: (channel: string, payload: string) => void): {
  notifyOnCommit: Queryable['notifyOnCommit'];
  tellAll(): void;
} {
  const held: [string, string][] = [];
  return {
    notifyOnCommit: (channel, payload) => void held.push([channel, payload]),
    tellAll: () => {
      for (const [channel, payload] of held) tell(channel, payload);
    },
  };
}
