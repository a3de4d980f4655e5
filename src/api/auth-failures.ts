// Brute-force guard for the access-token endpoint. Attempts are counted in the database (so every
// gateway process shares the count) per client_id and per source address, in a fixed window on the
// gateway's clock. An attempt reserves its place before its secret is checked, in one statement
// that counts and returns the new count: parallel guesses can never check more secrets than the
// limit, across every process. A correct secret gives its place back; a wrong one keeps it as a
// failure. The dashboard's sign-in uses its own counters (a namespace) on real time.
import type { Clock } from '../clock.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { Db } from '../store/db.ts';

/** A source address may fail this many times more than one client_id (offices share addresses). */
const ADDRESS_FACTOR = 10;

interface Counter {
  key: string;
  window_start: Date;
  failures: number;
  pending: number;
}

/** An attempt holding its places; settle it with succeeded() or failed(). */
export interface Reservation {
  keys: string[];
}

export class AuthFailures {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowSeconds: number,
    /** Prefix of this guard's counters, so that two guards (API, dashboard) never share one. */
    private readonly namespace = '',
  ) {}

  private limits(clientId: string | undefined, ip: string): Map<string, number> {
    const m = new Map<string, number>([[`${this.namespace}ip:${ip}`, this.limit * ADDRESS_FACTOR]]);
    if (clientId) m.set(`${this.namespace}cid:${clientId.slice(0, 100)}`, this.limit);
    return m;
  }

  /**
   * Reserves a place for one attempt under every counter it falls under (the client_id or dashboard
   * account, when given, and the address), or throws 429 with Retry-After when the window has no
   * place left for it.
   */
  async reserve(clientId: string | undefined, ip: string): Promise<Reservation> {
    const limits = this.limits(clientId, ip);
    const keys = [...limits.keys()].sort(); // one lock order for every statement: no deadlock
    const now = this.clock.now();
    const { rows } = await this.db.query<Counter>(
      `INSERT INTO auth_failures (key, window_start, failures, pending)
       SELECT k, $2::timestamptz, 0, 1 FROM unnest($1::text[]) AS k ORDER BY k
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN auth_failures.window_start <= $3 THEN 0 ELSE auth_failures.failures END,
         pending = CASE WHEN auth_failures.window_start <= $3 THEN 1 ELSE auth_failures.pending + 1 END,
         window_start = CASE WHEN auth_failures.window_start <= $3 THEN EXCLUDED.window_start ELSE auth_failures.window_start END
       RETURNING key, window_start, failures, pending`,
      [keys, now, new Date(now.getTime() - this.windowSeconds * 1000)],
      'auth_failures_reserve',
    );
    const over = rows.find((r) => r.failures + r.pending > limits.get(r.key)!);
    if (!over) return { keys };
    await this.release(keys, false);
    // Only places held by attempts being checked right now: one of them gives its place back soon.
    const full = over.failures >= limits.get(over.key)!;
    const retryAfter = full ? Math.max(1, Math.ceil((over.window_start.getTime() + this.windowSeconds * 1000 - now.getTime()) / 1000)) : 1;
    throw gatewayError(ERRORS.tooManyRequests, { detail: `Too many failed attempts; retry in ${retryAfter} s`, retryAfterSeconds: retryAfter });
  }

  /** The secret was right: the attempt gives its places back. */
  succeeded(r: Reservation): Promise<void> {
    return this.release(r.keys, false);
  }

  /** The secret was wrong: the attempt's places become failures for the rest of the window. */
  failed(r: Reservation): Promise<void> {
    return this.release(r.keys, true);
  }

  /** A failure that checked no secret (no client_id, another merchant's key): counted on the address only. */
  async failedWithoutCheck(ip: string): Promise<void> {
    await this.failed(await this.reserve(undefined, ip));
  }

  // Every statement that changes several counters locks them in key order, as reserve() does: an
  // UPDATE ... WHERE key = ANY locks them in the order its plan scans them (the table's physical
  // order on a sequential scan), and two attempts locking an address and a client_id in opposite
  // orders deadlock (PostgreSQL aborted one; the client got a 500).
  private async release(keys: string[], asFailure: boolean): Promise<void> {
    await this.db.query(
      `WITH locked AS (SELECT key FROM auth_failures WHERE key = ANY ($1::text[]) ORDER BY key FOR UPDATE)
       UPDATE auth_failures a SET pending = GREATEST(a.pending - 1, 0), failures = a.failures + $2 FROM locked WHERE a.key = locked.key`,
      [keys, asFailure ? 1 : 0],
      'auth_failures_release',
    );
  }

  /** Drops this guard's counters whose window has passed (on its own clock). */
  async prune(): Promise<void> {
    // Counters an attempt holds right now are skipped (SKIP LOCKED): pruning never waits on, nor
    // deadlocks with, an attempt.
    await this.db.query(
      `DELETE FROM auth_failures WHERE key IN (
         SELECT key FROM auth_failures WHERE window_start <= $1 AND pending = 0 AND key LIKE ANY ($2::text[]) ORDER BY key FOR UPDATE SKIP LOCKED)`,
      [new Date(this.clock.nowMs() - this.windowSeconds * 1000), [`${this.namespace}ip:%`, `${this.namespace}cid:%`]],
    );
  }
}
