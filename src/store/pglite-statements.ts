// Statements on PGlite in one call into its WebAssembly, prepared once (issue 25).
//
// PGlite's own query() makes six calls into PostgreSQL per statement (parse, describe the
// statement, bind, describe the portal, execute, sync), each a turn of PostgreSQL's message loop,
// and parses and plans the statement at every execution (it is unnamed). Measured on PGlite alone:
// `SELECT $1::int` 0.17 ms through query(), 0.05 ms for one protocol round trip; the payment's
// status change 0.75 ms of planning before 1.6 ms of execution. So a statement with parameters is
// prepared once under a name, as node-postgres does on PostgreSQL (postgres.ts names them too),
// and each execution is ONE call: bind, describe, execute, sync. Values are serialised by the
// parameter types PostgreSQL reported when it prepared the statement, and rows parsed, with
// PGlite's own serialisers and parsers: what a caller gets is what PGlite's query() gave it.
//
// The caller holds PGlite's query lock (`PGlite._runExclusiveQuery`): the calls of one statement
// must not interleave with another's.
import { parse, protocol, type PGlite } from '@electric-sql/pglite';
import type { QueryResult } from './db.ts';

const { serialize, messages: messages_ } = protocol;

/**
 * Statements with more parameters than this stay unnamed: the batches' multi-row INSERTs (create's
 * group commit, the request log: a text per batch size, 30 parameters a payment row) would each
 * keep a plan in PGlite's WebAssembly memory, which never shrinks (kept named, the gateway's peak
 * RSS under the create load rose from 234 to 263 MB, past issue 25's 256). A batch's statement is
 * worth its parse: its cost is shared by its rows.
 */
const MAX_NAMED_PARAMS = 40;
/** Named statements kept at most (the application's SQL texts with few parameters are a few dozen). */
const MAX_PREPARED = 1_000;

interface Prepared {
  name: string;
  /** The parameters' type OIDs as PostgreSQL inferred them. */
  types: number[];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Runs statements on `pg` as described above; one per PGlite instance (its statement names). */
export function statementRunner(pg: PGlite) {
  const prepared = new Map<string, Prepared>();
  let next = 0;
  const send = (...parts: Uint8Array[]) => pg.execProtocolStream(concat(parts), { syncToFs: false });

  /** Parses `sql` under `name` ('' = the unnamed statement, replaced by the next parse). */
  async function prepare(sql: string, name: string): Promise<Prepared> {
    const messages = await send(
      serialize.parse({ name, text: sql }),
      serialize.describe({ type: 'S', name }),
      serialize.sync(),
    );
    const described = messages.find((m) => m instanceof messages_.ParameterDescriptionMessage);
    const st: Prepared = {
      name,
      types: described instanceof messages_.ParameterDescriptionMessage ? described.dataTypeIDs : [],
    };
    if (name) prepared.set(sql, st);
    return st;
  }

  /** The messages that run `sql`: one call, once a statement with parameters is prepared. */
  async function executing(sql: string, params: readonly unknown[]): Promise<Uint8Array[]> {
    const run = [serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()];
    // No parameters: unnamed, like node-postgres on PostgreSQL, and in one call all the same.
    if (params.length === 0) return [serialize.parse({ text: sql }), serialize.bind({}), ...run];
    const named = params.length <= MAX_NAMED_PARAMS && prepared.size < MAX_PREPARED;
    const st = (named && prepared.get(sql)) || (await prepare(sql, named ? `k${++next}` : ''));
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      const serializer = pg.serializers[st.types[i]!];
      return serializer ? serializer(v) : String(v);
    });
    return [serialize.bind({ statement: st.name, values }), ...run];
  }

  return async function run<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    const [res] = parse.parseResults(await send(...(await executing(sql, params))), pg.parsers);
    // biome-ignore lint/nursery/noUnsafeTypeAssertion: the rows are what the caller's SQL selects, typed by the caller as PGlite's own query<T>() and node-postgres type them
    const rows = (res?.rows ?? []) as R[];
    // As on PostgreSQL: rows changed by a DML statement, rows returned by a SELECT (PGlite says
    // affectedRows 0 for a SELECT; found by the group-commit test).
    return { rows, rowCount: Math.max(res?.affectedRows ?? 0, rows.length) };
  };
}
