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
import { pruneCounters, releaseCounters, reserveCounters } from './auth-failures-store.ts';

/** A source address may fail this many times more than one client_id (offices share addresses). */
const ADDRESS_FACTOR = 10;

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
    const keys = [...limits.keys()].sort(); // one lock order for every statement (auth-failures-store.ts)
    const now = this.clock.now();
    const rows = await reserveCounters(this.db, keys, now, new Date(now.getTime() - this.windowSeconds * 1000));
    const over = rows.find((r) => r.failures + r.pending > limits.get(r.key)!);
    if (!over) return { keys };
    await this.release(keys, false);
    // Only places held by attempts being checked right now: one of them gives its place back soon.
    const full = over.failures >= limits.get(over.key)!;
    const retryAfter = full
      ? Math.max(1, Math.ceil((over.window_start.getTime() + this.windowSeconds * 1000 - now.getTime()) / 1000))
      : 1;
    throw gatewayError(ERRORS.tooManyRequests, {
      detail: `Too many failed attempts; retry in ${retryAfter} s`,
      retryAfterSeconds: retryAfter,
    });
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

  private release(keys: string[], asFailure: boolean): Promise<void> {
    return releaseCounters(this.db, keys, asFailure);
  }

  /** Drops this guard's counters whose window has passed (on its own clock). */
  prune(): Promise<void> {
    return pruneCounters(this.db, new Date(this.clock.nowMs() - this.windowSeconds * 1000), [
      `${this.namespace}ip:%`,
      `${this.namespace}cid:%`,
    ]);
  }
}
