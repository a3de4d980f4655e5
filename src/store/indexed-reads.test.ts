// Every statement of a payment's life finds its rows through an index. With sequential scans priced
// out of every plan (`enable_seqscan = off`), the planner still reads a table whole where no index
// can serve a statement — so a table that grows with the payments and shows a sequential scan in
// its statistics after the walk below lacks an index some path needs. One did: the sandbox
// acquirer looked up authorisations by transaction id at every refund, void and capture, reading
// the whole table (1.2–1.5 ms of PostgreSQL's CPU per refund at 12,000 authorisations; migration
// 022 indexed it). A sandbox reset read four tables whole per row it deleted, their foreign keys
// having no index (migration 023; 214 ms against 16–28 ms beside 50,000 other payments). Every
// callback claim and sweep read the merchants whole for the largest sandbox clock offset (0.61 ms a
// claim at 5,000 merchants; migration 024): the merchants, one row each, grow with the business too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { BACKENDS } from '../testing/databases.ts';
import {
  MerchantClient,
  accessToken,
  basicPayment,
  createPaid,
  startTestGateway,
  type TestGateway,
} from '../testing/harness.ts';
import { Receiver } from '../testing/receiver.ts';
import { backgroundJobs } from '../background.ts';
import { pruneRequests } from '../requests/store.ts';

/**
 * Tables that do not grow with the payments — configuration and operators' records, a few rows
 * each, where a sequential scan is the right plan at any volume. Every other table is checked, a
 * new one included.
 */
const BOUNDED = new Set([
  'settings',
  'api_keys',
  'signing_keys',
  'payment_transitions',
  'schema_migrations',
  'dashboard_users',
  'sandbox_faults', // the faults an operator armed
  'event_stream_interest', // one row per open event stream
]);

type Counts = Map<string, { seq: number; ins: number }>;

/**
 * Each table's sequential scans and inserted rows, once the gateway has stopped. A session
 * publishes its counts when it goes idle, at most once a second, and when it ends: on PostgreSQL
 * every session of the test database (the gateway's pools and listener) is ended and waited for,
 * and the counts read on a connection of their own; PGlite's one session is told to publish.
 */
async function countsAfterStop(t: TestGateway): Promise<Counts> {
  await t.gw.close();
  let read: (sql: string) => Promise<{ rows: { relname: string; seq: string; ins: string }[] }>;
  let end = async () => {};
  if (t.testDb.url) {
    const admin = new pg.Client({ connectionString: t.testDb.url });
    await admin.connect();
    end = () => admin.end();
    // pg_terminate_backend with a timeout returns once the session has ended.
    await admin.query(
      'SELECT pg_terminate_backend(pid, 60000) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    read = (sql) => admin.query(sql);
  } else {
    await t.testDb.db.query('SELECT pg_stat_force_next_flush()');
    read = (sql) => t.testDb.db.query(sql);
  }
  try {
    const { rows } = await read('SELECT relname, seq_scan AS seq, n_tup_ins AS ins FROM pg_stat_user_tables');
    return new Map(rows.map((r) => [r.relname, { seq: Number(r.seq), ins: Number(r.ins) }]));
  } finally {
    await end();
  }
}

/**
 * Foreign keys whose referencing columns lead no index: deleting or re-keying a referenced row then
 * reads the referencing table whole, once per row (a sandbox reset did, for four of them).
 */
const UNINDEXED_FOREIGN_KEYS = `
  SELECT c.conrelid::regclass::text || ' (' || (
           SELECT string_agg(a.attname, ', ' ORDER BY k.i)
           FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, i)
           JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
         ) || ') → ' || c.confrelid::regclass::text AS fk
  FROM pg_constraint c
  WHERE c.contype = 'f'
    AND NOT EXISTS (
      SELECT 1 FROM pg_index x
      WHERE x.indrelid = c.conrelid
        AND (x.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
        AND (x.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey)
  ORDER BY 1`;

for (const backend of BACKENDS) {
  describe(`every read of a payment's life goes through an index [${backend}]`, () => {
    let t: TestGateway;
    let m: MerchantClient;
    let rx: Receiver;
    before(async () => {
      t = await startTestGateway(backend, {}, { dbSettings: { enable_seqscan: 'off' } });
      m = await MerchantClient.create(t);
      rx = await new Receiver().start();
    });
    after(async () => {
      await rx.stop();
      await t.testDb.drop(); // the gateway stopped in the test
    });

    it('every foreign key leads an index of its table', async () => {
      const { rows } = await t.gw.services.db.query<{ fk: string }>(UNINDEXED_FOREIGN_KEYS);
      assert.deepEqual(
        rows.map((r) => r.fk),
        [],
      );
    });

    it('creates, pays, refunds, voids, completes, charges a saved card, calls back, reads, searches, sweeps, scrapes and resets without a sequential scan of a growing table', async () => {
      const ok = (res: { statusCode: number; body: string }, what: string) =>
        assert.equal(res.statusCode, 200, `${what}: ${res.body}`);

      const paid = await createPaid(t, m, { callbackUrl: rx.url });
      ok(await m.post(`/v1/gateway/payments/${paid}/cancel`, { amount: 2 }), 'partial refund');
      await t.gw.services.sharedClock.advance(86_400); // one partial cancel a day (the bank's rule)
      m.token = await accessToken(t.app, m.credentials); // the day outlived the token
      ok(await m.post(`/v1/gateway/payments/${paid}/cancel`, {}), 'refund of the rest');
      const held = await createPaid(t, m, { preAuth: true, saveCard: true, callbackUrl: rx.url });
      ok(await m.post(`/v1/gateway/payments/${held}/completion`, { amount: 10 }), 'completion');
      const voided = await createPaid(t, m, { preAuth: true });
      ok(await m.post(`/v1/gateway/payments/${voided}/cancel`, {}), 'void');
      const recId = (await m.getPayment(held)).json().recurringCard.recId as string;
      ok(
        await m.post('/v1/gateway/payments/execution', { recId, money: { amount: '3.00', currency: 'GEL' } }),
        'saved-card charge',
      );
      // A 3-D Secure challenge answered, a declined card, an unpaid payment read.
      const challenged = (await m.createPayment(basicPayment())).json().payId as string;
      ok(
        await t.admin('POST', `/sandbox/v1/payments/${challenged}/simulate`, { card: '4000000000003220', otp: '1234' }),
        'challenge',
      );
      const declined = (await m.createPayment(basicPayment())).json().payId as string;
      ok(await t.admin('POST', `/sandbox/v1/payments/${declined}/simulate`, { card: '4000000000000002' }), 'decline');
      for (const id of [paid, held, voided, challenged, declined]) ok(await m.getPayment(id), 'GET');
      ok(await m.get('/v1/gateway/events?limit=2'), 'events feed');
      for (const qs of [
        '',
        'status=Succeeded',
        'merchantPaymentId=o-1',
        'minAmount=1&maxAmount=20',
        'currency=GEL&limit=2',
      ])
        ok(await m.get(`/v1/gateway/payments?${qs}`), `search ${qs}`);
      await t.gw.services.callbacks.drain();
      assert.ok(rx.received.length >= 4, `callbacks received: ${rx.received.length}`);
      // What every gateway runs every second or minute whatever the traffic (src/background.ts),
      // the request log's pruning, and an operator's metrics scrape: a sweep that reads a growing
      // table whole costs more each day.
      for (const job of backgroundJobs(t.gw.services)) await job.run();
      await pruneRequests(t.gw.services.db, [m.credentials.clientId], 10);
      ok(await t.app.inject({ method: 'GET', url: '/metrics' }), 'metrics');

      const { rows } = await t.gw.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payments');
      // Last, the merchant's sandbox reset: it deletes what all of the above left, payment by payment.
      const reset = await m.post('/sandbox/v1/reset', {});
      ok(reset, 'sandbox reset');
      assert.equal(reset.json().deleted.payments, rows[0]!.n);
      const counts = await countsAfterStop(t);
      // The counts are whole: every payment inserted above is in them (a session not published would be missing).
      assert.equal(counts.get('payments')?.ins, rows[0]!.n, 'payments counted');
      const scanned = [...counts]
        .filter(([table, c]) => !BOUNDED.has(table) && c.seq > 0)
        .map(([table, c]) => `${table} (${c.seq})`);
      assert.deepEqual(scanned, [], 'tables read whole');
    });
  });
}
