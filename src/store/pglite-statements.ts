// Statements on PGlite in one call into its WebAssembly, prepared once (issue 25).
//
// PGlite's own query() makes six calls into PostgreSQL per statement (parse, describe the
// statement, bind, describe the portal, execute, sync), each a turn of PostgreSQL's message loop,
// and parses and plans the statement at every execution (it is unnamed). Measured on PGlite alone:
// `SELECT $1::int` 0.17 ms through query(), 0.05 ms for one protocol round trip; the payment's
// status change 0.75 ms of planning before 1.6 ms of execution. So a statement with parameters is
// prepared once under a name, as node-postgres does on PostgreSQL (postgres.ts names them too),
// and each execution is ONE call: bind, execute, sync (the result's columns described once, when it
// was prepared). Values are serialised by the
// parameter types PostgreSQL reported when it prepared the statement, and column values parsed,
// with PGlite's own serialisers and parsers: what a caller gets is what PGlite's query() gave it.
// The answer's messages are read by node-postgres's protocol parser (`pg-protocol`, what reads
// PostgreSQL's answers on the other backend): PGlite's own copies every field into a new buffer
// before decoding it, and was a fifth of the PGlite gateway's CPU under the lifecycle. Errors are
// therefore node-postgres's DatabaseError, as on PostgreSQL; notifications go to `onNotification`.
//
// The caller holds PGlite's query lock (`PGlite._runExclusiveQuery`): the calls of one statement
// must not interleave with another's.
import { protocol, types, type PGlite } from '@electric-sql/pglite';
import {
  CommandCompleteMessage,
  DataRowMessage,
  DatabaseError,
  NotificationResponseMessage,
  ParameterDescriptionMessage,
  RowDescriptionMessage,
  type BackendMessage,
} from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';
import type { QueryResult } from './db.ts';

const { serialize } = protocol;

/**
 * Statements with more parameters than this stay unnamed: a multi-row INSERT (the request log's
 * batches) is a text per batch size, and each would keep a plan in PGlite's WebAssembly memory,
 * which never shrinks (create's batch, then such a statement, raised the gateway's peak RSS under
 * the create load from 234 to 263 MB, past issue 25's 256; it is now one unnested statement of 30
 * parameters, named). A batch's statement is worth its parse: its cost is shared by its rows.
 */
const MAX_NAMED_PARAMS = 40;
/** Named statements kept at most (the application's SQL texts with few parameters are a few dozen). */
const MAX_PREPARED = 1_000;

interface Prepared {
  name: string;
  /** The parameters' type OIDs as PostgreSQL inferred them. */
  types: number[];
  /** The result's columns, described when it was prepared (none: NoData). */
  columns: Answer['columns'];
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

/** What one call answered: the rows (values as PostgreSQL's text), the command tag, the parameters' types. */
interface Answer {
  columns: { name: string; dataTypeID: number }[];
  rows: (string | null)[][];
  tag: string;
  parameterTypes: number[];
}

/**
 * Runs statements on `pg` as described above; one per PGlite instance (its statement names).
 * `onNotification` hears what the statements' transactions notified (PGlite's own listeners are
 * told only of what passes through its parser).
 */
export function statementRunner(pg: PGlite, onNotification: (channel: string, payload: string) => void) {
  const prepared = new Map<string, Prepared>();
  let next = 0;
  const parser = new Parser();

  async function send(...parts: Uint8Array[]): Promise<Answer> {
    const answer: Answer = { columns: [], rows: [], tag: '', parameterTypes: [] };
    let error: DatabaseError | null = null;
    const read = (m: BackendMessage) => {
      if (m instanceof DataRowMessage) answer.rows.push(m.fields);
      else if (m instanceof RowDescriptionMessage) answer.columns = m.fields;
      else if (m instanceof CommandCompleteMessage) answer.tag = m.text;
      else if (m instanceof ParameterDescriptionMessage) answer.parameterTypes = m.dataTypeIDs;
      else if (m instanceof NotificationResponseMessage) {
        const { channel, payload } = m;
        queueMicrotask(() => onNotification(channel, payload)); // as PGlite tells its listeners
      } else if (m instanceof DatabaseError) error ??= m; // the first: the statements after it were skipped
    };
    // The answer streams out of PostgreSQL's memory in chunks, each copied before the next (the
    // parser may keep a message's first part until its rest arrives). Streamed, it is read by
    // this parser only: PGlite's execProtocolRaw would also run its own parser over it.
    await pg.execProtocolRawStream(concat(parts), {
      syncToFs: false,
      onRawData: (chunk) => parser.parse(Buffer.from(chunk), read),
    });
    if (error) throw error;
    return answer;
  }

  /** Parses `sql` under `name` ('' = the unnamed statement, replaced by the next parse). */
  async function prepare(sql: string, name: string): Promise<Prepared> {
    const answer = await send(
      serialize.parse({ name, text: sql }),
      serialize.describe({ type: 'S', name }),
      serialize.sync(),
    );
    const st: Prepared = { name, types: answer.parameterTypes, columns: answer.columns };
    if (name) prepared.set(sql, st);
    return st;
  }

  /**
   * The messages that run `sql` (one call, once a statement with parameters is prepared), and the
   * result's columns when they are known already: a named statement's were described when it was
   * prepared and cannot change while it exists (PostgreSQL refuses to run it rather than answer
   * with other columns), so its executions ask for no description (as on PostgreSQL, pg-statement.ts).
   */
  async function executing(
    sql: string,
    params: readonly unknown[],
  ): Promise<{ parts: Uint8Array[]; columns?: Answer['columns'] }> {
    const run = [serialize.execute({}), serialize.sync()];
    const described = [serialize.describe({ type: 'P' }), ...run];
    // No parameters: unnamed, like node-postgres on PostgreSQL, and in one call all the same.
    if (params.length === 0) return { parts: [serialize.parse({ text: sql }), serialize.bind({}), ...described] };
    const named = params.length <= MAX_NAMED_PARAMS && prepared.size < MAX_PREPARED;
    const st = (named && prepared.get(sql)) || (await prepare(sql, named ? `k${++next}` : ''));
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      const serializer = pg.serializers[st.types[i]!];
      return serializer ? serializer(v) : String(v);
    });
    const bind = serialize.bind({ statement: st.name, values });
    return st.name ? { parts: [bind, ...run], columns: st.columns } : { parts: [bind, ...described] };
  }

  return async function run<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    const { parts, columns: known } = await executing(sql, params);
    const { columns: described, rows: raw, tag } = await send(...parts);
    const columns = known ?? described;
    const rows = raw.map((values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++)
        row[columns[i]!.name] = types.parseType(values[i] ?? null, columns[i]!.dataTypeID, pg.parsers);
      return row;
    });
    // As on PostgreSQL: the count in the command tag (rows changed, or returned by a SELECT).
    const counted = Number(tag.slice(tag.lastIndexOf(' ') + 1));
    return {
      // biome-ignore lint/nursery/noUnsafeTypeAssertion: the rows are what the caller's SQL selects, typed by the caller as PGlite's own query<T>() and node-postgres type them
      rows: rows as R[],
      rowCount: Math.max(Number.isInteger(counted) ? counted : 0, rows.length),
    };
  };
}
