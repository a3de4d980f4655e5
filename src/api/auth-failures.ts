// Brute-force guard for the access-token endpoint: failed attempts are counted in the database
// (so every gateway process shares the count) per client_id and per source address, in a fixed
// window on the gateway's clock.
import type { Clock } from '../clock.ts';
import type { Db } from '../store/db.ts';
import { ERRORS } from './errors.ts';
import { problem } from './problem.ts';

/** A source address may fail this many times more than one client_id (offices share addresses). */
const ADDRESS_FACTOR = 10;

export class AuthFailures {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  private limits(clientId: string | undefined, ip: string): Map<string, number> {
    const m = new Map<string, number>([[`ip:${ip}`, this.limit * ADDRESS_FACTOR]]);
    if (clientId) m.set(`cid:${clientId.slice(0, 100)}`, this.limit);
    return m;
  }

  /** Throws 429 with Retry-After while either counter is over its limit. */
  async check(clientId: string | undefined, ip: string): Promise<void> {
    const limits = this.limits(clientId, ip);
    const now = this.clock.nowMs();
    const { rows } = await this.db.query<{ key: string; window_start: Date; failures: number }>(
      'SELECT key, window_start, failures FROM auth_failures WHERE key = ANY($1) AND window_start > $2',
      [[...limits.keys()], new Date(now - this.windowSeconds * 1000)],
    );
    for (const r of rows) {
      if (r.failures >= limits.get(r.key)!) {
        const retryAfter = Math.max(1, Math.ceil((r.window_start.getTime() + this.windowSeconds * 1000 - now) / 1000));
        throw problem(ERRORS.tooManyRequests, {
          detail: `Too many failed attempts; retry in ${retryAfter} s`,
          headers: { 'Retry-After': String(retryAfter) },
        });
      }
    }
  }

  async record(clientId: string | undefined, ip: string): Promise<void> {
    const now = this.clock.now();
    const windowStart = new Date(now.getTime() - this.windowSeconds * 1000);
    for (const key of this.limits(clientId, ip).keys()) {
      await this.db.query(
        `INSERT INTO auth_failures (key, window_start, failures) VALUES ($1, $2, 1)
         ON CONFLICT (key) DO UPDATE SET
           failures = CASE WHEN auth_failures.window_start <= $3 THEN 1 ELSE auth_failures.failures + 1 END,
           window_start = CASE WHEN auth_failures.window_start <= $3 THEN EXCLUDED.window_start ELSE auth_failures.window_start END`,
        [key, now, windowStart],
      );
    }
  }

  /** Drops counters whose window has passed. */
  async prune(): Promise<void> {
    await this.db.query('DELETE FROM auth_failures WHERE window_start <= $1', [new Date(this.clock.nowMs() - this.windowSeconds * 1000)]);
  }
}
