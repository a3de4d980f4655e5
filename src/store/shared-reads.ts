// Reads of concurrent requests on shared connections (issue 25): the payment a pay, a GET or a
// checkout page starts by reading. Each such read checked a connection out of the shared pool, sent
// one statement in one write and held the connection until the busy event loop came back to its
// answer; under the lifecycle load 100–180 requests waited for one of the pool's 20 connections, and
// a third of the gateway's CPU was `writev`, mostly waking a sleeping PostgreSQL backend per
// statement. Reads asked in the same turn of the event loop now leave together on one connection
// of their own, in one write, pipelined (Db.together): each is still a statement of its own that
// commits alone (no transaction, nothing waits for a flush), and each caller hears its answer as
// soon as it arrives. A read that fails fails alone.
//
// Only for statements that change nothing: a pipelined write would make the reads behind it wait
// for its commit's flush. And since the batch's statements share a connection, a statement that
// runs past its deadline ends that connection, and the reads sent with it fail as unavailable
// (503, retried by the client) instead of only itself.
import { TurnBatches } from './turn-batches.ts';
import type { OwnPool, Queryable, QueryResult } from './db.ts';

export interface SharedReadsOptions {
  /** Batches (connections) in flight at once. */
  concurrency: number;
  /** Statements per batch at most. */
  maxBatch: number;
}

interface Waiting {
  send(q: Queryable): Promise<unknown>;
  reject(err: unknown): void;
}

export class SharedReads implements Queryable {
  private readonly batches: TurnBatches<Waiting>;
  /** Batches and statements sent (tests). */
  sent = { batches: 0, statements: 0 };

  constructor(
    /** Connections of its own (Db.ownPool), one per batch in flight. */
    private readonly db: OwnPool,
    opts: SharedReadsOptions,
  ) {
    this.batches = new TurnBatches(opts.concurrency, opts.maxBatch, (batch) => this.run(batch));
  }

  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], name?: string): Promise<QueryResult<R>> {
    return new Promise<QueryResult<R>>((resolve, reject) => {
      this.batches.push({ send: (q) => q.query<R>(sql, params, name).then(resolve, reject), reject });
    });
  }

  exec(sql: string): Promise<void> {
    return this.db.exec(sql);
  }

  notifyOnCommit(channel: string, payload: string): void {
    this.db.notifyOnCommit(channel, payload);
  }

  private async run(batch: Waiting[]): Promise<void> {
    this.sent.batches++;
    this.sent.statements += batch.length;
    try {
      await this.db.together((q) => batch.map((w) => w.send(q)));
    } catch (err) {
      // No connection to be had: each read fails as it would have alone (those answered keep theirs).
      for (const w of batch) w.reject(err);
    }
  }
}
