// VACUUM and ANALYZE for the embedded database, which has no autovacuum: PGlite runs PostgreSQL as
// one backend in single-user mode, where no background process runs. Without it, every status
// change left its old row version and that version's index entries behind for good: the partial
// indexes the hot paths read (the callback claim's pending deliveries, the expiry sweep's open
// payments) kept an entry per delivery or payment ever made, each visited on every scan — measured
// after a 10-second lifecycle bench on PGlite: the claim walked 4,000 dead entries of 2,000
// delivered callbacks, 0.51 ms a claim against 0.19 ms once vacuumed — and the planner never had
// statistics. (The claim now reads its indexes by plain scans that mark the dead entries they meet,
// src/callbacks/store.ts; the dead rows and entries themselves stay until a vacuum.)
//
// A PostgreSQL server has its autovacuum — unless it is turned off, as on the machines this code is
// measured on (issue 25): there the tables were never analysed either, or analysed once while
// empty, and the planner, believing them empty, read the payments, their events and the callback
// deliveries whole at every status change — 24,572 sequential scans of the payments in one 10-second
// lifecycle run, 406 paid payments a second where the same load paid 1,176 with statistics. So the
// gateway does the same on a server whose autovacuum is off (KARIBCHE_VACUUM=auto), and says so in
// its log; `on` and `off` decide it regardless.
//
// The decision is PostgreSQL's own: autovacuum's thresholds and scale factors, read from the
// server's settings (so `KARIBCHE_PGLITE_SETTINGS` can tune them as for a server), applied to the
// cumulative statistics the backend keeps — dead rows, rows inserted since the last vacuum, rows
// changed since the last analyse — and its freeze age, past which PostgreSQL would stop taking
// writes to protect itself from transaction-ID wraparound.
import type { Db, Queryable } from './db.ts';

export const VACUUM_MODES = ['auto', 'on', 'off'] as const;
export type VacuumMode = (typeof VACUUM_MODES)[number];

/**
 * Whether the gateway vacuums its database itself (`mode` auto: PGlite always, a server when its
 * own autovacuum is off — asked each time, as a reload can change it).
 */
export async function vacuumsItself(db: Pick<Db, 'kind' | 'query'>, mode: VacuumMode): Promise<boolean> {
  if (mode !== 'auto') return mode === 'on';
  if (db.kind === 'pglite') return true;
  const { rows } = await db.query<{ autovacuum: string }>(`SELECT current_setting('autovacuum') AS autovacuum`);
  return rows[0]?.autovacuum !== 'on';
}

export interface Vacuumed {
  table: string;
  /** VACUUM (ANALYZE) ran, rather than ANALYZE alone. */
  vacuumed: boolean;
}

// Each setting as autovacuum reads it; reltuples is -1 for a table never vacuumed or analysed.
const DUE = `
  WITH s AS (
    SELECT format('%I.%I', t.schemaname, t.relname) AS tbl,
           greatest(c.reltuples, 0) AS rows, t.n_dead_tup, t.n_ins_since_vacuum, t.n_mod_since_analyze,
           age(c.relfrozenxid) AS xid_age
    FROM pg_stat_user_tables t JOIN pg_class c ON c.oid = t.relid)
  SELECT tbl,
    n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8
                 + current_setting('autovacuum_vacuum_scale_factor')::float8 * rows
    OR n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8
                 + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * rows
    OR xid_age > current_setting('autovacuum_freeze_max_age')::float8 AS vacuum,
    n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
                 + current_setting('autovacuum_analyze_scale_factor')::float8 * rows AS analyse
  FROM s ORDER BY tbl`;

/**
 * Vacuums (with ANALYZE) each table over autovacuum's thresholds, and analyses each table only
 * over the analyse threshold: one statement per table, outside any transaction (VACUUM refuses
 * one), so that other work waits for one table at a time, not for all of them. Returns what ran.
 * The statistics lag by up to a second (the backend reports them when idle), as autovacuum's do.
 * Each runs without the statements' deadline (a large table's vacuum takes what it takes) and
 * skips a table another process is vacuuming at that moment (SKIP_LOCKED), rather than wait for it.
 */
export async function vacuumDue(db: Queryable): Promise<Vacuumed[]> {
  const { rows } = await db.query<{ tbl: string; vacuum: boolean; analyse: boolean }>(DUE);
  const done: Vacuumed[] = [];
  for (const { tbl, vacuum, analyse } of rows) {
    if (!vacuum && !analyse) continue;
    // The name comes from the catalogue, quoted by format('%I'): never from a caller.
    await db.exec(vacuum ? `VACUUM (ANALYZE, SKIP_LOCKED) ${tbl}` : `ANALYZE (SKIP_LOCKED) ${tbl}`);
    done.push({ table: tbl, vacuumed: vacuum });
  }
  return done;
}
