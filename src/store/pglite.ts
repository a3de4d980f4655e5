import { PGlite } from '@electric-sql/pglite';
import type { Db, Notification, Queryable, QueryResult } from './db.ts';

function wrap(q: Pick<PGlite, 'query' | 'exec'>): Queryable {
  return {
    async exec(sql: string) {
      await q.exec(sql);
    },
    async query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const res = await q.query<R>(sql, params as unknown[] | undefined);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
  };
}

/**
 * The embedded database. PGlite is one connection in this process: its transactions serialise,
 * which makes every row lock trivially held. LISTEN/NOTIFY is PGlite's own, so notifications sent
 * by SQL (triggers, pg_notify) arrive like they do from a PostgreSQL server.
 */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  const pg = await PGlite.create(dataDir);
  const base = wrap(pg);
  const listeners = new Map<string, Set<Notification>>();
  let closed = false;
  return {
    kind: 'pglite',
    query: base.query,
    exec: base.exec,
    tx: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    async listen(channel, onMessage) {
      let set = listeners.get(channel);
      if (!set) {
        listeners.set(channel, (set = new Set()));
        const subscribers = set;
        await pg.listen(channel, (payload) => {
          if (!closed) for (const fn of subscribers) fn(payload);
        });
      }
      set.add(onMessage);
    },
    async notify(channel, payload) {
      await pg.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async close() {
      closed = true;
      listeners.clear();
      await pg.close();
    },
  };
}
