import { createHash } from 'node:crypto';
import pg from 'pg';
import { ConfigError } from '../config.ts';
import type { Db, Notification, Queryable, QueryResult } from './db.ts';
import { runStatement } from './pg-statement.ts';
import {
  DatabaseUnavailableError,
  firstFailure,
  heldUntilCommit,
  isReadOnly,
  isTimedOut,
  isUnavailable,
} from './db.ts';

// int8 (bigint amounts, bigserial ids) as numbers: our values stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

// Every parameterised statement runs as a named prepared statement, named after its text: parsed
// and planned once per connection instead of on every call (measured: a lock-only transaction
// 1.20 → 0.81 ms here). The gateway's statement texts are a fixed set, so the cache stays small.
// Behind a transaction pooler (PgBouncer before 1.21) a named statement lives on one server
// connection while the next transaction may run on another, so there every statement is unnamed:
// parsed and planned on each call, which any pool mode passes through (docs/pgbouncer.md).
const statementNames = new Map<string, string>();
function statementName(
  sql: string,
  params: readonly unknown[] | undefined,
  given: string | undefined,
): string | undefined {
  if (given) return given;
  if (!params || params.length === 0) return undefined;
  let name = statementNames.get(sql);
  if (!name) {
    name = `s_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    if (statementNames.size < 10_000) statementNames.set(sql, name);
  }
  return name;
}

/** `auto`: named unless `url` turns out to lead to a connection pooler rather than to PostgreSQL. */
export type StatementMode = 'auto' | 'named' | 'unnamed';

export interface PostgresOptions {
  poolSize: number;
  /**
   * A statement unanswered this long fails (client side: no cancel is sent, the connection is
   * dropped). It bounds how long a request waits on a primary that died or was cut off before the
   * router notices, or on a COMMIT held by synchronous replication while no standby is attached:
   * the client gets a 503 and retries with its Idempotency-Key, which finds what did commit.
   */
  queryTimeoutMs?: number;
  onError?: (err: Error) => void;
  /**
   * A session connection to PostgreSQL itself, for LISTEN (a transaction pooler hands each
   * transaction whichever server connection is free, so a LISTEN made through it hears nothing).
   * Default: `url`, which then must not be a pooler.
   */
  listenUrl?: string;
  statements?: StatementMode;
}

/**
 * True when `client` talks to a pooler rather than to a PostgreSQL backend: a backend's key data
 * (what a cancel request names) carries its own process id; a pooler (PgBouncer, pgcat, Odyssey)
 * hands its clients keys of its own, since their statements run on backends it picks.
 */
async function throughPooler(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return rows[0]!.pid !== (client as unknown as { processID: number | null }).processID;
}

/**
 * The pools' connections: each always has a listener for its 'error' event. The pool listens while
 * a connection is idle and `leased` while it is lent, but between the two there is a moment — the
 * pool hands a new connection over inside the socket's data handler, the borrower's listener comes
 * a microtask later — and a server that says "ready" and ends the session in the same packet (a
 * primary shutting down as the pool connects) raised an unhandled 'error' event there, which ends
 * the process (the failover suite lost a gateway to it). The error is not lost: the connection is no
 * longer queryable, so its borrower's statement fails and `leased` drops it.
 */
class ListenedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {});
  }
}

/**
 * A pool whose connections are ListenedClients in pg's pipeline mode: statements issued together
 * (the group commit's batch) go out without waiting for each other's answers. One statement at a
 * time behaves as without it; a statement past its deadline ends its connection, as `leased` does.
 */
const newPool = (config: pg.PoolConfig) => new pg.Pool({ ...config, Client: ListenedClient, pipeline: true });

/**
 * Holds what pg writes on `client`'s socket until this turn of the event loop is over (the ticks
 * queued now): statements issued together leave in one write instead of one each — a write is a
 * system call and, for the server, a wake-up (measured: a transaction of six statements in three
 * writes instead of six cost PostgreSQL 0.72 instead of 0.97 ms of CPU and the client 0.23 instead
 * of 0.44). pg corks and uncorks around each statement itself; corks nest, so the socket is
 * written when the last one is lifted.
 */
function corkForThisTurn(client: pg.PoolClient): void {
  const corked = corkedClients;
  if (corked.has(client)) return;
  corked.add(client);
  const stream = client.connection.stream;
  stream.cork();
  process.nextTick(() => {
    corked.delete(client);
    stream.uncork();
  });
}
const corkedClients = new WeakSet<pg.PoolClient>();

/** What `send` issues on `client`, in one write: the socket corked while pg queues it. */
function inOneWrite<T>(client: pg.PoolClient, send: () => T): T {
  const stream = client.connection.stream;
  stream.cork();
  try {
    return send();
  } finally {
    stream.uncork();
  }
}

/** A connection that met this error is dropped, not returned to its pool. */
const breaksConnection = (err: unknown) => isReadOnly(err) || isTimedOut(err) || isUnavailable(err);

/** A pooled PostgreSQL connection, plus one dedicated client for LISTEN that reconnects by itself. */
export async function openPostgres(url: string, opts: PostgresOptions): Promise<Db> {
  const pool = newPool({
    connectionString: url,
    max: opts.poolSize,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  const deadline = opts.queryTimeoutMs;
  pool.on('error', (err) => opts.onError?.(err)); // idle client lost: the pool replaces it
  let pooler: boolean;
  try {
    const probe = await pool.connect();
    try {
      pooler = await throughPooler(probe);
    } finally {
      probe.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw isUnavailable(err) ? new DatabaseUnavailableError(err) : err;
  }
  const named = opts.statements === 'named' || (opts.statements !== 'unnamed' && !pooler);
  const nameFor = (sql: string, params: readonly unknown[] | undefined, given: string | undefined) =>
    named ? statementName(sql, params, given) : undefined;
  const listenUrl = opts.listenUrl ?? url;

  const listeners = new Map<string, Set<Notification>>();
  let listener: pg.Client | null = null;
  /** The listener's connection under way: one at a time, and close() waits for it. */
  let connecting: Promise<void> | null = null;
  let closed = false;
  let reconnectTimer: NodeJS.Timeout | null = null;

  function connectListener(): Promise<void> {
    connecting ??= openListener().finally(() => {
      connecting = null;
    });
    return connecting;
  }

  async function openListener(): Promise<void> {
    if (closed || listeners.size === 0) return;
    const client = new pg.Client({ connectionString: listenUrl, connectionTimeoutMillis: 5_000 });
    const retry = () => {
      if (listener === client) listener = null;
      client.end().catch(() => {});
      if (!closed && !reconnectTimer) {
        reconnectTimer = setTimeout(() => {
          reconnectTimer = null;
          connectListener().catch(() => {});
        }, 1_000);
        reconnectTimer.unref();
      }
    };
    client.on('error', retry);
    client.on('notification', (msg) => {
      tell(msg.channel, msg.payload ?? '');
    });
    try {
      await client.connect();
      // Every channel asked for, those asked while it connects included: a Map's iteration sees
      // the keys added before it ends, and nothing is awaited between its end and `listener = client`.
      for (const ch of listeners.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(ch)}`);
      // Closed while it connected (an event stream opened as the gateway stopped): a client kept
      // now would hold its connection, and the process, open for ever.
      if (closed) await client.end();
      else listener = client;
    } catch {
      retry();
    }
  }

  async function run<R>(fn: () => Promise<R>): Promise<R> {
    try {
      return await fn();
    } catch (err) {
      throw isUnavailable(err) ? new DatabaseUnavailableError(err) : err;
    }
  }

  /**
   * Runs fn on a connection checked out of the pool, and drops that connection (instead of
   * returning it) when it broke, led to a standby (read-only: the pool's next one reaches the
   * primary) or has a statement still running past its deadline. While checked out the connection
   * has no pool listener: a server that goes away mid-statement would otherwise be an unhandled
   * 'error' event that ends the process (the failover test's gateways died of it).
   */
  async function leased<R>(
    fn: (client: pg.PoolClient, broke: () => void) => Promise<R>,
    from: pg.Pool = pool,
  ): Promise<R> {
    const client = await from.connect();
    let drop = false;
    const onClientError = (err: Error) => {
      drop = true;
      opts.onError?.(err);
    };
    client.on('error', onClientError);
    try {
      return await fn(client, () => (drop = true));
    } catch (err) {
      if (breaksConnection(err)) drop = true;
      throw err;
    } finally {
      client.off('error', onClientError);
      client.release(drop);
    }
  }

  /** The listeners of this process (LISTEN's and notifyOnCommit's). */
  const tell = (channel: string, payload: string) => {
    for (const fn of listeners.get(channel) ?? []) fn(payload);
  };

  /**
   * Statements on a checked-out connection, each with `limit` as its deadline. `together`: the
   * statements issued in one turn (before the caller's next await, e.g. under one Promise.all) leave
   * in one write — the connection is in pipeline mode, so none waits for the answer before it.
   */
  const onClient = (
    client: pg.PoolClient,
    limit: number | undefined,
    notifyOnCommit: Queryable['notifyOnCommit'],
    together = false,
  ): Queryable => ({
    notifyOnCommit,
    async query<R>(sql: string, params?: readonly unknown[], name?: string) {
      if (together) corkForThisTurn(client);
      const res = await runStatement(client, sql, params, nameFor(sql, params, name), limit);
      return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 } satisfies QueryResult<R>;
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  });

  /** One statement on a connection of `from`, committed on its own. */
  const queryOn =
    (from: pg.Pool) =>
    <R>(sql: string, params?: readonly unknown[], name?: string) =>
      run(() => leased((client) => onClient(client, deadline, tell).query<R>(sql, params, name), from));
  const txOn =
    (from: pg.Pool): Db['tx'] =>
    (fn, txOpts) =>
      run(() =>
        leased(async (client, broke) => {
          const limit = txOpts?.patient ? undefined : deadline;
          const notes = heldUntilCommit(tell);
          // BEGIN leaves with the transaction's first statements (one write, pipelined): a round
          // trip saved per transaction. Should BEGIN fail, so do they, and its error is the one thrown.
          corkForThisTurn(client);
          const begin = runStatement(client, 'BEGIN', undefined, undefined, limit);
          begin.catch(() => {});
          try {
            const work = fn(onClient(client, limit, notes.notifyOnCommit, true));
            await Promise.allSettled([begin, work]);
            await begin;
            const result = await work;
            await runStatement(client, 'COMMIT', undefined, undefined, limit);
            notes.tellAll();
            return result;
          } catch (err) {
            // A statement that timed out is still running on that connection: a ROLLBACK would
            // queue behind it. Dropping the connection (leased) ends the transaction — it commits
            // only if its COMMIT had reached the server; the key's recovery point tells a retry which.
            if (!isTimedOut(err)) await client.query('ROLLBACK').catch(broke);
            throw err;
          }
        }, from),
      );
  /**
   * BEGIN, the statements and COMMIT on one connection of `from`, written at once (the socket
   * corked while pg queues them; the connections are in pipeline mode, so none waits for an
   * answer). A statement that fails aborts the transaction: those after it fail too, and the COMMIT
   * answers ROLLBACK.
   */
  const batchOn =
    (from: pg.Pool): Db['batch'] =>
    (send) =>
      run(() =>
        leased(async (client) => {
          const notes = heldUntilCommit(tell);
          const q = onClient(client, deadline, notes.notifyOnCommit);
          const control = (sql: string) => runStatement(client, sql, undefined, undefined, deadline);
          const [begin, sent, commit] = inOneWrite(
            client,
            () => [control('BEGIN'), send(q), control('COMMIT')] as const,
          );
          await Promise.allSettled([begin, ...sent, commit]);
          // Each settled by now; in the order sent, the first failure is the cause.
          await begin;
          const values = await firstFailure(sent);
          const committed = await commit;
          if (committed.command !== 'COMMIT') throw new Error(`the batch's COMMIT answered ${committed.command}`);
          notes.tellAll();
          return values;
        }, from),
      );
  /** OwnPool.together: the statements on one connection of `from`, in one write, no transaction. */
  const togetherOn =
    (from: pg.Pool): Db['together'] =>
    (send) =>
      run(() =>
        leased(async (client, broke) => {
          const q = onClient(client, deadline, tell);
          // Each caller sees the error a statement alone would have thrown (unavailable: a 503).
          const own: Queryable = {
            ...q,
            query: <R>(sql: string, params?: readonly unknown[], name?: string) =>
              run(() =>
                q.query<R>(sql, params, name).catch((err: unknown) => {
                  if (breaksConnection(err)) broke();
                  throw err;
                }),
              ),
          };
          // The connection goes back to its pool once every answer has come.
          await Promise.allSettled(inOneWrite(client, () => send(own)));
        }, from),
      );
  const ownPools: pg.Pool[] = [];

  const db: Db = {
    kind: 'postgres',
    pooled: pooler,
    notifyOnCommit: tell,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    query: queryOn(pool),
    ownPool(size) {
      const own = newPool({
        connectionString: url,
        max: size,
        connectionTimeoutMillis: 5_000,
        idleTimeoutMillis: 30_000,
      });
      own.on('error', (err) => opts.onError?.(err));
      ownPools.push(own);
      return {
        query: queryOn(own),
        tx: txOn(own),
        batch: batchOn(own),
        together: togetherOn(own),
        exec: (sql) => run(async () => void (await own.query(sql))),
        notifyOnCommit: tell,
      };
    },
    tx: txOn(pool),
    batch: batchOn(pool),
    together: togetherOn(pool),
    async exec(sql) {
      await run(() => pool.query(sql));
    },
    async listen(channel, onMessage) {
      if (pooler && !opts.listenUrl) {
        throw new ConfigError(
          'DATABASE_URL leads to a connection pooler (PgBouncer?), through which LISTEN hears nothing: set KARIBCHE_DATABASE_DIRECT_URL to a session connection to PostgreSQL itself (docs/pgbouncer.md)',
        );
      }
      let set = listeners.get(channel);
      const isNew = !set;
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(onMessage);
      if (!listener) await connectListener();
      else if (isNew) await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    },
    async notify(channel, payload) {
      await run(() => pool.query('SELECT pg_notify($1, $2)', [channel, payload]));
    },
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      // A connection under way ends itself once it sees `closed` (pg's end() during a connect
      // would leave that connect unsettled); at most connectionTimeoutMillis.
      await connecting;
      await listener?.end().catch(() => {});
      await Promise.all(ownPools.map((p) => p.end()));
      await pool.end();
    },
  };
  return db;
}
