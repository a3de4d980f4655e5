// The bench's "many operations on one merchant" phase: 64 connections refund and complete paid
// payments concurrently, all of ONE merchant, and, alternating with it, the same on 64 merchants
// (one per connection); then charge saved cards the same way (one merchant's card, then each
// merchant's own). Equal figures mean no per-merchant hot spot (a lock on the merchant's row,
// a per-merchant counter or index page every operation writes); every round also samples
// PostgreSQL's wait events, which name such a hot spot when there is one.
import pg from 'pg';
import { ADMIN, CONNECTIONS, call, merchantHeaders } from './run.ts';

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;

export interface OpsRound {
  merchants: number;
  opsPerSecond: number;
  p50: number;
  p99: number;
  operations: number;
  errors: number;
  /** The most frequent wait events of the gateway's sessions (sampled every 10 ms). */
  waits?: Record<string, number>;
}

interface Paid {
  payId: string;
  preAuth: boolean;
}

type Headers = Record<string, string>;

/** A payment of the merchant `h` created with `fields` and paid by card through the simulator: its payId. */
async function createPaid(base: string, h: Headers, fields: Record<string, unknown>): Promise<string> {
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ returnurl: 'https://shop.example/return', ...fields });
  const created = await call('POST', `${base}/v1/gateway/payments`, { ...h, 'content-type': 'application/json' }, body);
  const { payId } = created.json<{ payId: string }>();
  const paid = await call(
    'POST',
    `${base}/sandbox/v1/payments/${payId}/simulate`,
    admin,
    JSON.stringify({ method: 5, card: '4111111111111111' }),
  );
  if (paid.status !== 200) throw new Error(`simulate ${paid.status}`);
  return payId;
}

/** `perMerchant` paid payments (every other one a pre-authorisation) of each merchant, made through the API. */
async function preparePaid(base: string, merchants: Headers[], perMerchant: number): Promise<Paid[][]> {
  const jobs = merchants.flatMap((h, m) =>
    Array.from({ length: perMerchant }, (_, i) => ({ h, m, preAuth: i % 2 === 1 })),
  );
  const out: Paid[][] = merchants.map(() => []);
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const payId = await createPaid(base, job.h, {
          amount: { currency: 'GEL', total: '25.40' },
          preAuth: job.preAuth,
        });
        out[job.m]!.push({ payId, preAuth: job.preAuth });
      }
    }),
  );
  return out;
}

/** Samples pg_stat_activity of `dbUrl`'s database until stopped: wait events of active sessions. */
export function sampleWaits(dbUrl: string): { stop(): Promise<Record<string, number>> } {
  const counts: Record<string, number> = {};
  let running = true;
  const done = (async () => {
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    try {
      while (running) {
        const { rows } = await c.query<{ w: string }>(
          `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS w FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`,
        );
        for (const r of rows) counts[r.w] = (counts[r.w] ?? 0) + 1;
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      await c.end();
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return Object.fromEntries(
        Object.entries(counts)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 6),
      );
    },
  };
}

/** A saved card of each merchant: a payment that saves it, paid through the simulator. */
async function prepareCards(base: string, merchants: Headers[]): Promise<string[]> {
  return Promise.all(
    merchants.map(async (h) => {
      const payId = await createPaid(base, h, { amount: { currency: 'GEL', total: '1.00' }, saveCard: true });
      const got = await call('GET', `${base}/v1/gateway/payments/${payId}`, h, undefined);
      const recId = got.json<{ recurringCard?: { recId?: string } }>().recurringCard?.recId;
      if (!recId) throw new Error(`no saved card on ${payId}: ${got.status}`);
      return recId;
    }),
  );
}

/** Each connection charges its merchant's saved card `count` times (SPEC 9: synchronous, Succeeded). */
async function execute(
  base: string,
  workers: { h: Headers; recId: string; count: number }[],
): Promise<Omit<OpsRound, 'merchants'>> {
  return timed(workers, async ({ h, recId, count }, done) => {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const res = await call(
        'POST',
        `${base}/v1/gateway/payments/execution`,
        { ...h, 'content-type': 'application/json' },
        JSON.stringify({ recId, money: { amount: '12.34', currency: 'GEL' } }),
      );
      done(started, res.status === 200 && res.json<{ status?: string }>().status === 'Succeeded');
    }
  });
}

/** Runs `work` for each worker at once; operations per second and latency percentiles of those that succeeded. */
async function timed<W>(
  workers: W[],
  work: (w: W, done: (started: number, ok: boolean) => void) => Promise<void>,
): Promise<Omit<OpsRound, 'merchants'>> {
  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    workers.map((w) =>
      work(w, (started, ok) => {
        if (ok) latencies.push(performance.now() - started);
        else errors++;
      }),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    opsPerSecond: Math.round(latencies.length / seconds),
    p50: Number(pct(latencies, 50).toFixed(1)),
    p99: Number(pct(latencies, 99).toFixed(1)),
    operations: latencies.length,
    errors,
  };
}

/** Each connection works through its queue: a completion of a pre-authorisation, else a full refund. */
async function operate(base: string, queues: { h: Headers; todo: Paid[] }[]): Promise<Omit<OpsRound, 'merchants'>> {
  return timed(queues, async ({ h, todo }, done) => {
    for (let p = todo.pop(); p; p = todo.pop()) {
      const started = performance.now();
      const res = p.preAuth
        ? await call(
            'POST',
            `${base}/v1/gateway/payments/${p.payId}/completion`,
            { ...h, 'content-type': 'application/json' },
            '{"amount":25.40}',
          )
        : await call(
            'POST',
            `${base}/v1/gateway/payments/${p.payId}/cancel`,
            { ...h, 'content-type': 'application/json' },
            '{}',
          );
      const status = res.json<{ status?: string }>().status;
      done(started, res.status === 200 && status === (p.preAuth ? 'Succeeded' : 'Returned'));
    }
  });
}

/**
 * `rounds` pairs of rounds, one merchant then CONNECTIONS merchants, each over `perRound` paid
 * payments made beforehand (so the rounds measure the operations alone).
 */
export async function benchMerchantOps(base: string, dbUrl: string, opts: { rounds: number; perRound: number }) {
  // Merchants that may save cards: their saved cards are charged after the refunds.
  const saving = { saveCardEnabled: true };
  const hot = await merchantHeaders(base, 'Bench ops, one merchant', saving);
  const spread = await Promise.all(
    Array.from({ length: CONNECTIONS }, (_, i) => merchantHeaders(base, `Bench ops ${i + 1}`, saving)),
  );
  const per = Math.ceil(opts.perRound / CONNECTIONS);
  const results: { one: OpsRound[]; many: OpsRound[]; executions: { one: OpsRound[]; many: OpsRound[] } } = {
    one: [],
    many: [],
    executions: { one: [], many: [] },
  };
  const [[hotCard], spreadCards] = await Promise.all([prepareCards(base, [hot]), prepareCards(base, spread)]);
  for (let r = 0; r < opts.rounds; r++) {
    const [[hotPaid], spreadPaid] = await Promise.all([
      preparePaid(base, [hot], per * CONNECTIONS),
      preparePaid(base, spread, per),
    ]);
    // One merchant: every connection takes the next payment from the one shared queue.
    const shared = hotPaid!;
    const waits = sampleWaits(dbUrl);
    const one = await operate(
      base,
      Array.from({ length: CONNECTIONS }, () => ({ h: hot, todo: shared })),
    );
    results.one.push({ merchants: 1, ...one, waits: await waits.stop() });
    const spreadWaits = sampleWaits(dbUrl);
    const many = await operate(
      base,
      spread.map((h, i) => ({ h, todo: spreadPaid[i]! })),
    );
    results.many.push({ merchants: CONNECTIONS, ...many, waits: await spreadWaits.stop() });
    // Saved-card charges, as many as the refunds and completions: one merchant's card by every
    // connection, then each merchant's own card by its connection.
    const oneCharges = sampleWaits(dbUrl);
    const chargesOne = await execute(
      base,
      Array.from({ length: CONNECTIONS }, () => ({ h: hot, recId: hotCard!, count: per })),
    );
    results.executions.one.push({ merchants: 1, ...chargesOne, waits: await oneCharges.stop() });
    const manyCharges = sampleWaits(dbUrl);
    const chargesMany = await execute(
      base,
      spread.map((h, i) => ({ h, recId: spreadCards[i]!, count: per })),
    );
    results.executions.many.push({ merchants: CONNECTIONS, ...chargesMany, waits: await manyCharges.stop() });
  }
  return results;
}
