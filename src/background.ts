// Background work of one gateway process, each job on its own timer so that a slow one (the
// reconciler waiting on a slow acquirer) never delays another (expiry). Each job's runs never
// overlap; a failure is logged and the job runs again at its next tick.
import { AuthFailures } from './api/auth-failures.ts';
import { IDEMPOTENCY, releasePendingClaims } from './idempotency/once.ts';
import { pruneKeys } from './idempotency/store.ts';
import { reconcile } from './payments/reconciler.ts';
import type { Services } from './services.ts';
import { vacuumDue } from './store/vacuum.ts';

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
    // The embedded database has no autovacuum of its own (src/store/vacuum.ts); a server has.
    ...(s.db.kind === 'pglite'
      ? [
          {
            name: 'vacuum',
            everyMs: s.config.pgliteVacuumIntervalMs,
            run: async () => {
              const done = await vacuumDue(s.db);
              if (done.length) s.log.debug({ tables: done }, 'embedded database vacuumed');
            },
          },
        ]
      : []),
  ];
}

export function startBackground(s: Services): { stop(): Promise<void> } {
  const jobs = backgroundJobs(s).map((job) => every(s, job));
  return {
    async stop() {
      await Promise.all(jobs.map((j) => j.stop()));
    },
  };
}
