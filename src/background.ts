// Background work of one gateway process, each job on its own timer so that a slow one (the
// reconciler waiting on a slow acquirer) never delays another (expiry). Each job's runs never
// overlap; a failure is logged and the job runs again at its next tick.
import { AuthFailures } from './api/auth-failures.ts';
import { IDEMPOTENCY, releasePendingClaims } from './idempotency/once.ts';
import { pruneKeys } from './idempotency/store.ts';
import { reconcile } from './payments/reconciler.ts';
import type { Services } from './services.ts';
import { vacuumDue, vacuumsItself } from './store/vacuum.ts';

/** Housekeeping (pruning expired rows) runs this often. */
const HOUSEKEEPING_MS = 60_000;

export interface Job {
  name: string;
  everyMs: number;
  run(): Promise<unknown>;
}

/** Runs `job` every `everyMs` after the previous run ended, until stopped. */
function every(s: Services, job: Job): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = job
        .run()
        .then(
          () => {},
          (err) => s.log.warn({ err, job: job.name }, 'background job failed'),
        )
        .finally(schedule);
    }, job.everyMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}

/** The jobs every gateway process runs on its timers (exported so that a test can run each once). */
export function backgroundJobs(s: Services): Job[] {
  const failures = new AuthFailures(s.db, s.clock, s.config.authFailureLimit, s.config.authFailureWindowSeconds);
  const tick = s.config.sweepIntervalMs;
  return [
    { name: 'clock', everyMs: tick, run: () => s.sharedClock.refresh() },
    { name: 'expiry', everyMs: tick, run: () => s.sweeper.sweep() },
    { name: 'reconcile', everyMs: tick, run: () => reconcile(s) },
    { name: 'idempotency-release', everyMs: tick, run: () => releasePendingClaims(s.db) },
    {
      name: 'housekeeping',
      everyMs: HOUSEKEEPING_MS,
      run: async () => {
        await failures.prune();
        await pruneKeys(s.db, new Date(s.clock.nowMs() - IDEMPOTENCY.retentionMs));
      },
    },
    // A database without an autovacuum (PGlite; a server with it turned off) is kept by the gateway.
    ...(s.config.vacuum === 'off' ? [] : [vacuumJob(s)]),
  ];
}

/** The vacuum job (src/store/vacuum.ts): on a server, only while the server's own autovacuum is off. */
function vacuumJob(s: Services): Job {
  let told = false;
  return {
    name: 'vacuum',
    everyMs: s.config.vacuumIntervalMs,
    run: async () => {
      if (!(await vacuumsItself(s.db, s.config.vacuum))) return;
      if (s.db.kind === 'postgres' && !told) {
        told = true;
        s.log.warn(
          { event: 'database.vacuum', mode: s.config.vacuum },
          s.config.vacuum === 'auto'
            ? "the database server's autovacuum is off: the gateway vacuums and analyses its tables by autovacuum's rules (KARIBCHE_VACUUM)"
            : "KARIBCHE_VACUUM=on: the gateway vacuums and analyses its tables by autovacuum's rules",
        );
      }
      const done = await vacuumDue(s.db);
      if (done.length) s.log.debug({ tables: done }, 'database vacuumed');
    },
  };
}

export function startBackground(s: Services): { stop(): Promise<void> } {
  const jobs = backgroundJobs(s).map((job) => every(s, job));
  return {
    async stop() {
      await Promise.all(jobs.map((j) => j.stop()));
    },
  };
}
