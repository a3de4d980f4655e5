// Tests that need the PostgreSQL server (several processes on one database, outages, the cluster)
// say so when it is not part of the run: each is reported as skipped with the reason, counted in the
// runner's summary, rather than vanishing from the output.
import { describe, it } from 'node:test';
import { BACKENDS } from './databases.ts';

/** Why PostgreSQL-only tests do not run in this run (scripts/test.mjs says when the server is absent), or false. */
export const POSTGRES_SKIP: string | false = BACKENDS.includes('postgres')
  ? false
  : process.env.KARIBCHE_TEST_POSTGRES_ABSENT ||
    `PostgreSQL is not among KARIBCHE_TEST_BACKENDS (${BACKENDS.join(', ') || 'none'})`;

/** A suite that needs PostgreSQL; without it, one test of that name reported as skipped with the reason. */
export function describePostgres(name: string, fn: () => void): void {
  if (POSTGRES_SKIP) it(name, { skip: POSTGRES_SKIP }, () => {});
  else describe(name, fn);
}
