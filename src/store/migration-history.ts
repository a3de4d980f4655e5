// What a database says it has applied (schema_migrations), held against the code's sequence of
// migrations 001, 002, … Until issue 27 the files were numbered in ranges (001–009, 030–032,
// 060–062, 070, 090, 091, 100) and the migrator applied whichever were missing in any order; the
// files were then renumbered 010–019, their SQL unchanged. A database migrated by that code records
// the old numbers: they are rewritten here once, inside the migration's transaction, and the
// rewritten rows are the record that it happened (the old names never match again).
import type { Queryable } from './db.ts';

export interface AppliedMigration {
  version: number;
  name: string;
}

export interface Renumbered {
  from: string;
  to: string;
}

/** The files renumbered by issue 27, old name to new name (001–009 kept theirs). Never to change. */
const LEGACY_RENUMBERING: readonly Renumbered[] = [
  { from: '030_payment_search.sql', to: '010_payment_search.sql' },
  { from: '031_callback_problems.sql', to: '011_callback_problems.sql' },
  { from: '032_request_log.sql', to: '012_request_log.sql' },
  { from: '060_bank_profile.sql', to: '013_bank_profile.sql' },
  { from: '061_sandbox_outcomes.sql', to: '014_sandbox_outcomes.sql' },
  { from: '062_callback_conformance.sql', to: '015_callback_conformance.sql' },
  { from: '070_dashboard.sql', to: '016_dashboard.sql' },
  { from: '090_event_feed.sql', to: '017_event_feed.sql' },
  { from: '091_idempotency_work.sql', to: '018_idempotency_work.sql' },
  { from: '100_merchant_clock.sql', to: '019_merchant_clock.sql' },
];

const versionOf = (name: string) => Number(name.slice(0, 3));

/** A database whose applied history this code will not migrate; nothing was changed. */
export class MigrationHistoryError extends Error {
  override name = 'MigrationHistoryError';
  constructor(problem: string) {
    super(`refusing to migrate the database: ${problem}. Nothing was changed.`);
  }
}

/**
 * Rewrites rows recorded in the old numbering (version and name both the old ones) to the new
 * numbering, and answers the history as it now stands, in version order. A row of a later
 * migration numbered like an old one (a future 030_*.sql) has another name and is left alone.
 */
export async function carryOverLegacyNumbering(
  q: Queryable,
  recorded: readonly AppliedMigration[],
): Promise<{ applied: AppliedMigration[]; renumbered: Renumbered[] }> {
  const renumbered = LEGACY_RENUMBERING.filter((r) =>
    recorded.some((a) => a.version === versionOf(r.from) && a.name === r.from),
  );
  if (!renumbered.length) return { applied: [...recorded], renumbered };
  const taken = renumbered.find((r) => recorded.some((a) => a.version === versionOf(r.to)));
  if (taken)
    throw new MigrationHistoryError(
      `${taken.from} is recorded in the numbering before 2026-11-27 while version ${versionOf(taken.to)} is recorded too; a history has one numbering or the other`,
    );
  await q.query(
    `UPDATE schema_migrations m SET version = r.to_version, name = r.to_name
       FROM unnest($1::int[], $2::text[], $3::int[], $4::text[]) AS r(from_version, from_name, to_version, to_name)
      WHERE m.version = r.from_version AND m.name = r.from_name`,
    [
      renumbered.map((r) => versionOf(r.from)),
      renumbered.map((r) => r.from),
      renumbered.map((r) => versionOf(r.to)),
      renumbered.map((r) => r.to),
    ],
  );
  const renamed = new Map(renumbered.map((r) => [r.from, r.to]));
  const applied = recorded
    .map((a) =>
      renamed.has(a.name) && a.version === versionOf(a.name)
        ? { version: versionOf(renamed.get(a.name)!), name: renamed.get(a.name)! }
        : a,
    )
    .sort((a, b) => a.version - b.version);
  return { applied, renumbered };
}

/**
 * What keeps this code from migrating a database that has applied `applied` (in version order),
 * or null when that history is a prefix of `sequence` (the code's migrations, 001, 002, …).
 */
export function historyProblem(
  applied: readonly AppliedMigration[],
  sequence: readonly AppliedMigration[],
): string | null {
  const last = sequence.at(-1);
  const unknown = applied.find((a) => !Number.isInteger(a.version) || a.version < 1);
  if (unknown)
    return `it records migration ${unknown.name} as version ${unknown.version}, which is no migration's number`;
  const newer = applied.filter((a) => a.version > sequence.length);
  if (newer.length) {
    return `it records ${newer.map((a) => a.name).join(', ')}, which this code does not know (it knows ${last ? `001 to ${last.name}` : 'no migration'}): the code is older than the database — run the version of Karibche that migrated it, or a newer one`;
  }
  for (const [i, a] of applied.entries()) {
    const expected = sequence[i]!;
    if (a.version !== expected.version)
      return `its history has a gap: ${expected.name} is not applied but the later ${a.name} is`;
    if (a.name !== expected.name)
      return `it records version ${a.version} as ${a.name}, but this code's migration ${a.version} is ${expected.name}`;
  }
  return null;
}

export function refuseUnlessPrefix(applied: readonly AppliedMigration[], sequence: readonly AppliedMigration[]): void {
  const problem = historyProblem(applied, sequence);
  if (problem) throw new MigrationHistoryError(problem);
}
