// A statement for node-postgres that asks PostgreSQL to describe its result once per connection
// instead of at every execution (issue 25).
//
// node-postgres sends a named prepared statement's Parse once per connection, but Describe at every
// execution: PostgreSQL answers each with the result's RowDescription (47 columns for a payment
// row), which pg then parses and turns into a parser per column again. In the gateway's CPU
// profile that was ~11% of the pay step (parsing the description 4%, building the parsers 6.4%)
// and of every other step that reads a payment. A prepared statement's result columns cannot
// change while it exists (PostgreSQL refuses to run it, "cached plan must not change result type",
// rather than answer with other columns), so the first execution's description serves every later
// one on that connection; a statement that fails forgets it, and the next execution describes again.
//
// It also skips pg's copy of every query config (`cloneQueryConfig`, 3% of the profile): the text,
// values and callback go to pg's Query as they are.
import pg from 'pg';

type Parser = (text: string) => unknown;
type Callback = (err: Error | undefined, result: pg.QueryResult) => void;

/** What a first execution learnt of a statement's result, reused by the next ones. */
interface Description {
  fields: pg.FieldDef[];
  parsers: Parser[] | undefined;
  empty: Record<string, null> | null;
}

// pg's internals this relies on (pg 8.x, pinned in package.json; src/store/pg-statement.test.ts
// fails if they change): the Result a Query fills, and the Connection it writes to.
interface ResultInternals {
  fields: pg.FieldDef[];
  _parsers: Parser[] | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
}
interface ConnectionInternals {
  bind(config: { portal: string; statement: string; values: unknown; binary: unknown; valueMapper: unknown }): void;
  close(config: { type: 'S'; name: string }): void;
  sync(): void;
}
interface QueryInternals {
  prepare(connection: ConnectionInternals): void;
  handleRowDescription(msg: { fields: pg.FieldDef[] }): void;
  handleCommandComplete(msg: unknown, connection: ConnectionInternals): void;
  _result: ResultInternals;
  _accumulateRows: unknown;
  name?: string;
  portal: string;
  values?: unknown[];
  binary?: unknown;
  rows?: number;
  callback?: unknown;
  hasBeenParsed(connection: ConnectionInternals): boolean;
  _getRows(connection: ConnectionInternals, rows: number | undefined): void;
  handleError(err: Error, connection: ConnectionInternals): void;
}

// biome-ignore lint/nursery/noUnsafeTypeAssertion: pg exports its utilities at run time, its types do not declare them
const prepareValue = (pg as unknown as { utils: { prepareValue: (v: unknown) => unknown } }).utils.prepareValue;
// biome-ignore lint/nursery/noUnsafeTypeAssertion: pg's Query as it is (its types declare only what an application calls)
const Query = pg.Query as unknown as new (
  text: string,
  values: readonly unknown[] | undefined,
  callback: Callback,
) => pg.Query & QueryInternals;

/** Per connection (pg's Connection object), its statements' result descriptions by name. */
const descriptions = new WeakMap<ConnectionInternals, Map<string, Description | 'describing'>>();
function described(connection: ConnectionInternals): Map<string, Description | 'describing'> {
  let map = descriptions.get(connection);
  if (!map) descriptions.set(connection, (map = new Map()));
  return map;
}

class DescribedOnce extends Query {
  /** This execution asked for the description (the first on its connection). */
  private describing: Map<string, Description | 'describing'> | null = null;

  constructor(
    text: string,
    values: readonly unknown[] | undefined,
    name: string | undefined,
    /** Read by pg's Client.query (its client-side deadline). */
    readonly query_timeout: number | undefined,
    callback: Callback,
  ) {
    super(text, values, callback); // pg only reads the values
    this.name = name;
  }

  /** pg's prepare (Query.prepare), without the Describe once the statement's result is known. */
  override prepare(connection: ConnectionInternals): void {
    const known = this.name ? described(connection).get(this.name) : undefined;
    if (!this.name || !known || known === 'describing' || !this.hasBeenParsed(connection)) {
      if (this.name && !known) {
        this.describing = described(connection);
        this.describing.set(this.name, 'describing'); // the statements pipelined behind it describe too
      }
      super.prepare(connection);
      return;
    }
    try {
      connection.bind({
        portal: this.portal,
        statement: this.name,
        values: this.values,
        binary: this.binary,
        valueMapper: prepareValue,
      });
    } catch (err) {
      // As pg's prepare: a value it cannot send fails this statement only.
      connection.close({ type: 'S', name: this.name });
      connection.sync();
      this.handleError(err instanceof Error ? err : new Error(String(err)), connection);
      return;
    }
    const result = this._result;
    result.fields = known.fields;
    result._parsers = known.parsers;
    result._prebuiltEmptyResultObject = known.empty;
    this._accumulateRows = true; // what pg sets on a description when the query has a callback
    this._getRows(connection, this.rows);
  }

  override handleRowDescription(msg: { fields: pg.FieldDef[] }): void {
    super.handleRowDescription(msg);
    this.remember();
  }

  override handleCommandComplete(msg: unknown, connection: ConnectionInternals): void {
    // A statement without a result (NoData: no RowDescription came) is described as such.
    this.remember();
    super.handleCommandComplete(msg, connection);
  }

  override handleError(err: Error, connection: ConnectionInternals): void {
    // Whatever failed, the next execution on this connection describes again.
    if (this.name) descriptions.get(connection)?.delete(this.name);
    this.describing = null;
    super.handleError(err, connection);
  }

  private remember(): void {
    if (!this.describing || !this.name) return;
    const r = this._result;
    this.describing.set(this.name, { fields: r.fields, parsers: r._parsers, empty: r._prebuiltEmptyResultObject });
    this.describing = null;
  }
}

/**
 * Runs one statement on `client` (named: prepared once per connection and described once; unnamed
 * with parameters: parsed each time; without parameters: a simple query), with pg's client-side
 * deadline `timeoutMs`.
 */
export function runStatement(
  client: pg.ClientBase,
  text: string,
  values: readonly unknown[] | undefined,
  name: string | undefined,
  timeoutMs: number | undefined,
): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    client.query(new DescribedOnce(text, values, name, timeoutMs, (err, res) => (err ? reject(err) : resolve(res))));
  });
}
