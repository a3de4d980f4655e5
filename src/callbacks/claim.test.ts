// The dispatcher's claim (claimDue) on both backends: what it takes, in which order, and that it
// walks only the deliveries still open — not an index entry of every delivery ever made.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { MerchantClient, createPaid, startTestGateway, type TestGateway } from '../testing/harness.ts';
import { Receiver } from '../testing/receiver.ts';
import { waitUntil } from '../testing/wait.ts';
import type { Queryable } from '../store/db.ts';
import { claimDue } from './store.ts';

const PAYMENTS = 40;
const HOUR_MS = 3_600_000;

for (const backend of BACKENDS) {
  describe(`the callback claim [${backend}]`, () => {
    let t: TestGateway;
    let rx: Receiver;
    let eventIds: number[];
    before(async () => {
      rx = await new Receiver().start();
      // No dispatcher of its own (deliveries are sent by drain()) and no vacuum: not the gateway's
      // (KARIBCHE_VACUUM=off), nor a server's whose own autovacuum is on.
      t = await startTestGateway(backend, { KARIBCHE_VACUUM: 'off' });
      const db = t.gw.services.db;
      if (backend === 'postgres') await db.query('ALTER TABLE callback_deliveries SET (autovacuum_enabled = false)');
      const m = await MerchantClient.create(t, { callbackUrlPrefixes: [new URL(rx.url).origin] });
      for (let i = 0; i < PAYMENTS; i++) await createPaid(t, m, { callbackUrl: rx.url });
      await t.gw.services.callbacks.drain();
      assert.equal(rx.received.length, PAYMENTS, 'every callback delivered');
      const { rows } = await db.query<{ event_id: string }>(
        `SELECT event_id FROM callback_deliveries WHERE status = 'delivered' ORDER BY event_id`,
      );
      eventIds = rows.map((r) => Number(r.event_id));
    });
    after(async () => {
      await t.close();
      await rx.stop();
    });

    /**
     * The claim as the dispatcher sends it, in a transaction of its own, and the index entries its
     * scans took from the deliveries' two indexes: the backend's own count for the transaction, read
     * before and after (PGlite's single backend keeps counting across transactions).
     */
    async function claim(limit: number) {
      return t.gw.services.db.tx(async (q: Queryable) => {
        const entries = async () =>
          Number(
            (
              await q.query<{ n: string }>(
                `SELECT (pg_stat_get_xact_tuples_returned('callback_deliveries_due'::regclass)
                       + pg_stat_get_xact_tuples_returned('callback_deliveries_leased'::regclass))::text AS n`,
              )
            ).rows[0]!.n,
          );
        const before = await entries();
        const claimed = await claimDue(q, t.clock.base.now(), limit, 30);
        return { claimed, entries: (await entries()) - before };
      });
    }

    it('walks no entry of the deliveries that are over, once a claim has met them', async () => {
      // Every delivery left a dead entry in the pending index and one in the leased index. A claim
      // marks the entries it meets whose rows no transaction can still see (a transaction of the
      // database's own, an autoanalyze say, may hold them a moment); a claim after that walks none.
      // A bitmap scan never marks any: the claim before this one walked all 2 × PAYMENTS every time.
      let entries = -1;
      await waitUntil(
        'an empty claim that walks no index entry',
        async () => {
          const c = await claim(50);
          assert.deepEqual(c.claimed, []);
          entries = c.entries;
          return entries === 0;
        },
        30_000,
      ).catch((err: Error) => assert.fail(`${err.message}; the last claim walked ${entries}`));
    });

    it('takes the pending deliveries that are due and the expired leases, oldest due first, up to its limit', async () => {
      const db = t.gw.services.db;
      const [a, b, c, d, e, f] = eventIds;
      const set = (sql: string, ids: (number | undefined)[]) =>
        db.query(`UPDATE callback_deliveries SET ${sql} WHERE event_id = ANY ($1::bigint[])`, [ids]);
      const now = t.clock.base.now().getTime();
      const at = (ms: number) => new Date(now + ms).toISOString();
      // Due: a (10 min ago), c (5 min ago, an expired lease), b (1 min ago). Not due: d (in an
      // hour), e (delivering, its lease still running). f stays delivered.
      await set(`status = 'pending', next_attempt_at = '${at(-600_000)}'`, [a]);
      await set(`status = 'pending', next_attempt_at = '${at(-60_000)}'`, [b]);
      await set(
        `status = 'delivering', next_attempt_at = '${at(-300_000)}', lease_until = now() - interval '1 second'`,
        [c],
      );
      await set(`status = 'pending', next_attempt_at = '${at(HOUR_MS)}'`, [d]);
      await set(`status = 'delivering', next_attempt_at = '${at(-900_000)}', lease_until = now() + interval '1 hour'`, [
        e,
      ]);
      const before = new Map(
        (
          await db.query<{ event_id: string; attempts: number }>('SELECT event_id, attempts FROM callback_deliveries')
        ).rows.map((r) => [Number(r.event_id), r.attempts]),
      );

      const two = await claim(2);
      assert.deepEqual(
        two.claimed.map((r) => Number(r.event_id)),
        [a, c],
      );
      const rest = await claim(50);
      assert.deepEqual(
        rest.claimed.map((r) => Number(r.event_id)),
        [b],
      );
      assert.deepEqual((await claim(50)).claimed, [], 'nothing else is due');

      const { rows } = await db.query<{ event_id: string; status: string; attempts: number; leased: boolean }>(
        `SELECT event_id, status, attempts, lease_until > now() AS leased FROM callback_deliveries
         WHERE event_id = ANY ($1::bigint[]) ORDER BY event_id`,
        [[a, b, c, d, e, f]],
      );
      const row = (id: number | undefined) => rows.find((r) => Number(r.event_id) === id)!;
      for (const id of [a, b, c]) {
        assert.equal(row(id).status, 'delivering');
        assert.equal(row(id).attempts, before.get(id!)! + 1, 'a claim counts the attempt');
        assert.equal(row(id).leased, true, 'and leases it');
      }
      assert.equal(row(d).status, 'pending', 'not due yet');
      assert.equal(row(e).attempts, before.get(e!), 'a running lease is left alone');
      assert.equal(row(f).status, 'delivered');
    });
  });
}
