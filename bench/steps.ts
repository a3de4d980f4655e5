// `node --import tsx bench/steps.ts [--pglite]`: where a whole payment's CPU goes, step by step.
// The lifecycle phase of `npm run bench` says how many payments a second the gateway holds and how
// long each step waits; this says what each step costs in CPU, and in which process: the gateway,
// the PostgreSQL backends serving it, and this load generator. A closed loop of
// STEPS_CONCURRENCY (32) customers runs STEPS_PAYMENTS (3,000) payments through one step at a
// time — all creates, then all pays through the sandbox simulate endpoint, then (the callbacks
// having arrived) all merchant GETs — and reads each process's CPU time (/proc) around the step.
// Pays run twice: for payments with a callback URL (the callback's sending and recording count
// with the pay) and for payments of a merchant without one, so that the callback's share is their
// difference. Then each paid payment of the merchant without callbacks is refunded in full: a
// refund's own cost (two status changes and the acquirer's answer, as a pay); and one charge of a
// saved card per payment, on cards saved beforehand. The first round
// warms the code up (JIT, caches, pools); STEPS_ROUNDS (2) rounds.
// The gateway is `npm start`'s build with its node flags, one worker, on a throwaway database
// (STEPS_BUNDLE: another build of src/main.ts, as the test suite's); STEPS_OUT writes the rounds as JSON.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { waitUntil } from '../src/testing/wait.ts';
import { ADMIN, NODE_FLAGS, call, createDatabase, merchantHeaders, startGateway } from './run.ts';

export interface StepsOptions {
  payments: number;
  concurrency: number;
  rounds: number;
  pglite: boolean;
  /** A build of src/main.ts to run instead of building dist/ (the test suite's). */
  bundle?: string;
  /** Gateway environment on top of the bench's. */
  env?: Record<string, string>;
  print?: boolean;
}
/**
 * Time a process's threads have spent on a CPU, in µs (the scheduler's own account,
 * /proc/<pid>/task/<tid>/schedstat, in ns: exact where /proc/<pid>/stat counts 10 ms ticks); 0
 * once it has gone. A thread that ended meanwhile takes its time with it (the gateway's threads
 * live as long as it does; a PostgreSQL backend is one thread).
 */
function processCpuUs(pid: number): number {
  try {
    let ns = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`))
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1000;
  } catch {
    return 0;
  }
}

/** The CPU of the PostgreSQL backends connected to `database` (the gateway's pools), per pid. */
async function backendsCpu(admin: pg.Client | null, database: string): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  if (!admin) return cpu;
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
    database,
  ]);
  for (const { pid } of rows) cpu.set(pid, processCpuUs(pid));
  return cpu;
}

export interface StepCost {
  step: string;
  perSecond: number;
  /** µs of CPU per payment. */
  gatewayUs: number;
  postgresUs: number | null;
  loadUs: number;
  /** The step's window on the machine's monotonic clock (µs, as a V8 CPU profile's timestamps). */
  window: [number, number];
}

/** Each round's costs, step by step. */
export async function measureSteps(o: StepsOptions): Promise<StepCost[][]> {
  const PAYMENTS = o.payments;
  const CONCURRENCY = o.concurrency;
  const db = o.pglite ? null : await createDatabase();
  const database = db ? new URL(db.url).pathname.slice(1) : '';
  if (!o.bundle) execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const gw = await startGateway({ DATABASE_URL: db?.url ?? '', KARIBCHE_WORKERS: '1', ...o.env }, 0, {
    bundle: o.bundle,
  });
  const admin = db ? new pg.Client({ connectionString: db.url }) : null;
  await admin?.connect();
  let callbacks = 0;
  const receiver = http
    .createServer((req, res) => req.resume().on('end', () => (callbacks++, res.end('ok'))))
    .listen(0, '127.0.0.1');
  await new Promise((r) => receiver.once('listening', r));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/cb`;
  const gatewayPid = gw.proc.child.pid!;
  const json = { 'content-type': 'application/json' };
  const sandbox = { authorization: `Bearer ${ADMIN}`, ...json };
  const called = {
    ...(await merchantHeaders(gw.base, 'Steps', { callbackUrlPrefixes: ['http://127.0.0.1:*'] })),
    ...json,
  };
  const silent = { ...(await merchantHeaders(gw.base, 'Steps without callbacks')), ...json };
  const saver = {
    ...(await merchantHeaders(gw.base, 'Steps with saved cards', { saveCardEnabled: true })),
    ...json,
  };

  /** Runs `fn` for every payment index with CONCURRENCY at once; the CPU each process spent. */
  async function step(name: string, fn: (i: number) => Promise<void>, until?: () => boolean): Promise<StepCost> {
    const pg0 = await backendsCpu(admin, database);
    const gw0 = processCpuUs(gatewayPid);
    const load0 = process.cpuUsage();
    const t0 = performance.now();
    const from = Number(process.hrtime.bigint() / 1000n);
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < PAYMENTS) await fn(next++);
      }),
    );
    if (until) await waitUntil(`${name}: every callback arrives`, until, 120_000, 10);
    const seconds = (performance.now() - t0) / 1000;
    const load = process.cpuUsage(load0);
    const gatewayUs = processCpuUs(gatewayPid) - gw0;
    let postgresUs = 0;
    for (const [pid, after] of await backendsCpu(admin, database)) postgresUs += after - (pg0.get(pid) ?? 0);
    const per = (us: number) => Math.round(us / PAYMENTS);
    return {
      step: name,
      perSecond: Math.round(PAYMENTS / seconds),
      gatewayUs: per(gatewayUs),
      postgresUs: admin ? per(postgresUs) : null,
      loadUs: per(load.user + load.system),
      window: [from, Number(process.hrtime.bigint() / 1000n)],
    };
  }

  const ok = (res: { status: number }, what: string) => {
    if (res.status !== 200) throw new Error(`${what} answered ${res.status}`);
  };
  const createAll = (headers: Record<string, string>, extra: object) => {
    const ids: string[] = [];
    const body = JSON.stringify({
      amount: { currency: 'GEL', total: '10.00' },
      returnurl: 'https://shop.example/r',
      ...extra,
    });
    return {
      ids,
      run: async (i: number) => {
        const res = await call('POST', gw.url, headers, body);
        ok(res, 'create');
        ids[i] = res.json<{ payId: string }>().payId;
      },
    };
  };
  const pay = (ids: string[]) => async (i: number) =>
    ok(
      await call('POST', `${gw.base}/sandbox/v1/payments/${ids[i]}/simulate`, sandbox, '{"card":"4111111111111111"}'),
      'pay',
    );

  const rounds: StepCost[][] = [];
  // Stopped whatever happens: a failed step must not leave the gateway (and a test's process) running.
  try {
    for (let round = 1; round <= o.rounds; round++) {
      const withCallback = createAll(called, { callbackUrl });
      const without = createAll(silent, {});
      const costs: StepCost[] = [];
      costs.push(await step('create', withCallback.run));
      await step('create (no callback URL)', without.run); // not reported: the same as create
      callbacks = 0;
      costs.push(await step('pay + its callback', pay(withCallback.ids), () => callbacks >= PAYMENTS));
      costs.push(await step('pay (no callback)', pay(without.ids)));
      costs.push(
        await step('merchant GET', async (i) =>
          ok(await call('GET', `${gw.url}/${withCallback.ids[i]}`, called), 'GET'),
        ),
      );
      // A full refund of each paid payment of the merchant without callbacks: the refund's own cost.
      costs.push(
        await step('refund (no callback)', async (i) =>
          ok(await call('POST', `${gw.url}/${without.ids[i]}/cancel`, silent, '{}'), 'refund'),
        ),
      );
      // A charge of a saved card per payment (`POST /payments/execution`, the merchant's server
      // alone): the cards saved by payments made and paid beforehand, not measured.
      const saving = createAll(saver, { saveCard: true });
      await step('create (saving a card)', saving.run);
      await step('pay (saving a card)', pay(saving.ids));
      const recIds: string[] = [];
      await step('read the saved cards', async (i) => {
        const res = await call('GET', `${gw.url}/${saving.ids[i]}`, saver);
        ok(res, 'GET');
        recIds[i] = res.json<{ recurringCard: { recId: string } }>().recurringCard.recId;
      });
      const charge = (recId: string) => JSON.stringify({ recId, money: { amount: '1.00', currency: 'GEL' } });
      costs.push(
        await step('saved-card charge', async (i) =>
          ok(await call('POST', `${gw.url}/execution`, saver, charge(recIds[i]!)), 'charge'),
        ),
      );
      rounds.push(costs);
      if (o.print !== false) print(o, round, costs);
    }
  } finally {
    receiver.close();
    await admin?.end();
    await gw.proc.stop();
    await db?.drop();
  }
  return rounds;
}

function print(o: StepsOptions, round: number, costs: StepCost[]): void {
  const backend = o.pglite ? 'PGlite (in the gateway)' : 'PostgreSQL';
  console.log(
    `round ${round}${round === 1 ? ' (warm-up)' : ''}: ${o.payments} payments, ${o.concurrency} at once, ${backend}, gateway flags ${NODE_FLAGS.join(' ') || '(none)'}`,
  );
  console.log('  step                     per s   µs of CPU per payment: gateway  PostgreSQL  load generator');
  for (const c of costs)
    console.log(
      `  ${c.step.padEnd(22)} ${String(c.perSecond).padStart(7)}   ${String(c.gatewayUs).padStart(30)}  ${String(c.postgresUs ?? '–').padStart(10)}  ${String(c.loadUs).padStart(14)}`,
    );
  const byName = new Map(costs.map((c) => [c.step, c]));
  const withCb = byName.get('pay + its callback')!;
  const alone = byName.get('pay (no callback)')!;
  console.log(
    `  the callback alone (difference): gateway ${withCb.gatewayUs - alone.gatewayUs} µs, PostgreSQL ${
      withCb.postgresUs === null ? '–' : withCb.postgresUs - alone.postgresUs!
    } µs`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const rounds = await measureSteps({
    payments: Number(process.env.STEPS_PAYMENTS ?? 3_000),
    concurrency: Number(process.env.STEPS_CONCURRENCY ?? 32),
    rounds: Number(process.env.STEPS_ROUNDS ?? 2),
    pglite: process.argv.includes('--pglite'),
    bundle: process.env.STEPS_BUNDLE,
  });
  if (process.env.STEPS_OUT) fs.writeFileSync(process.env.STEPS_OUT, JSON.stringify({ rounds }, null, 2));
}
