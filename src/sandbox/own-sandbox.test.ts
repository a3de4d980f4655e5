// A sandbox of the merchant's own (issue 15): two merchants (two CI jobs) on one gateway, each
// with its own clock and its own data, reached with its own credentials.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { describePostgres } from '../testing/postgres-only.ts';
import {
  ADMIN_TOKEN,
  EVERYTHING,
  MerchantClient,
  TEST_ACQUIRER_MODULE,
  accessToken,
  basicPayment,
  secondGateway,
  startTestGateway,
  useProcesses,
  type TestGateway,
} from '../testing/harness.ts';
import { Receiver } from '../testing/receiver.ts';
import { selectCallbackBacklog } from '../callbacks/store.ts';

const run = promisify(execFile);
const DAY = 86_400;

for (const backend of BACKENDS) {
  describe(`a sandbox of the merchant's own [${backend}]`, () => {
    let t: TestGateway;
    let a: MerchantClient;
    let b: MerchantClient;
    let rx: Receiver;
    before(async () => {
      t = await startTestGateway(backend);
      a = await MerchantClient.create(t);
      b = await MerchantClient.create(t);
      rx = await new Receiver().start();
    });
    after(async () => {
      await rx.stop();
      await t.close();
    });

    const fresh = async (...ms: MerchantClient[]) => {
      for (const m of ms) m.token = await accessToken(t.app, m.credentials);
    };
    const create = async (m: MerchantClient, over: Record<string, unknown> = {}) => {
      const r = await m.createPayment(basicPayment(over));
      assert.equal(r.statusCode, 200, r.body);
      return r.json().payId as string;
    };
    const simulate = async (m: MerchantClient, payId: string, body: Record<string, unknown>) =>
      m.post(`/sandbox/v1/payments/${payId}/simulate`, body);
    const status = async (m: MerchantClient, payId: string) => (await m.getPayment(payId)).json().status as string;
    const row = async (payId: string) =>
      (await t.gw.services.db.query<any>('SELECT * FROM payments WHERE pay_id = $1', [payId])).rows[0];

    it("moves one merchant's clock only: its own view, and the other's and the gateway's stay", async () => {
      const gateway0 = (await t.admin('GET', '/sandbox/v1/clock')).json();
      const b0 = (await b.get('/sandbox/v1/clock')).json();
      assert.equal(b0.clientId, b.credentials.clientId);
      assert.equal(b0.merchantOffsetSeconds, 0);
      const moved = await a.post('/sandbox/v1/clock', { advanceSeconds: 2 * DAY });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.equal(moved.json().clientId, a.credentials.clientId);
      assert.equal(moved.json().merchantOffsetSeconds, 2 * DAY);
      assert.equal(moved.json().offsetSeconds, gateway0.offsetSeconds + 2 * DAY);
      const aNow = new Date(moved.json().now).getTime();
      const bNow = new Date((await b.get('/sandbox/v1/clock')).json().now).getTime();
      assert.ok(aNow - bNow > 2 * DAY * 1000 - 60_000 && aNow - bNow <= 2 * DAY * 1000, `A ${aNow} B ${bNow}`);
      assert.equal((await b.get('/sandbox/v1/clock')).json().merchantOffsetSeconds, 0);
      assert.equal((await t.admin('GET', '/sandbox/v1/clock')).json().offsetSeconds, gateway0.offsetSeconds);
      // Stored: another process reads it from the database.
      const { rows } = await t.gw.services.db.query<{ client_id: string; ms: string }>(
        'SELECT client_id, clock_offset_ms::text AS ms FROM merchants WHERE client_id = ANY ($1)',
        [[a.credentials.clientId, b.credentials.clientId]],
      );
      assert.deepEqual(Object.fromEntries(rows.map((r) => [r.client_id, Number(r.ms)])), {
        [a.credentials.clientId]: 2 * DAY * 1000,
        [b.credentials.clientId]: 0,
      });
      for (const advanceSeconds of [0, -1, 400 * DAY + 1]) {
        const bad = await a.post('/sandbox/v1/clock', { advanceSeconds });
        assert.equal(bad.statusCode, 400);
        assert.equal(bad.json().systemCode, 'sandbox.400.001');
      }
    });

    it("stamps a payment with its merchant's time; A's payment expires on A's clock, B's identical one does not", async () => {
      const pa = await create(a, { expirationMinutes: 30 });
      const pb = await create(b, { expirationMinutes: 30 });
      const [ra, rb] = [await row(pa), await row(pb)];
      const created = ra.created_at.getTime() - rb.created_at.getTime();
      assert.ok(created > 2 * DAY * 1000 - 60_000, `A's payment is created on A's clock (${created} ms ahead)`);
      const moved = (await a.post('/sandbox/v1/clock', { advanceSeconds: 31 * 60 })).json();
      assert.equal(moved.expired, 1);
      assert.equal(await status(a, pa), 'Expired');
      assert.equal(await status(b, pb), 'Created');
      // The event of the change is on A's clock too.
      const ev = (
        await t.gw.services.db.query<{ created_at: Date }>('SELECT created_at FROM payment_events WHERE pay_id = $1', [
          pa,
        ])
      ).rows[0]!;
      assert.ok(ev.created_at.getTime() >= ra.expires_at.getTime());
      assert.equal(await t.gw.services.sweeper.sweep(), 0);
      assert.equal(await status(b, pb), 'Created');
    });

    it("releases A's pre-authorisation when A's block window passes; B's stays blocked and can still be completed", async () => {
      await fresh(a, b);
      const pa = await create(a, { preAuth: true });
      const pb = await create(b, { preAuth: true });
      for (const [m, id] of [
        [a, pa],
        [b, pb],
      ] as const) {
        const paid = await simulate(m, id, { card: '4000000000000838' });
        assert.equal(paid.json().status, 'WaitingConfirm', paid.body);
      }
      assert.equal((await a.post('/sandbox/v1/clock', { advanceSeconds: 8 * DAY })).statusCode, 200);
      await fresh(a, b);
      assert.equal(await status(a, pa), 'Returned');
      assert.equal(await status(b, pb), 'WaitingConfirm');
      const done = await b.post(`/v1/gateway/payments/${pb}/completion`, { amount: 10 });
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.json().status, 'Succeeded');
    });

    it("retries A's failed callback on A's clock; B's retry schedule does not move", async () => {
      rx.answers = [500];
      await fresh(a, b);
      const pa = await create(a, { callbackUrl: rx.url });
      const pb = await create(b, { callbackUrl: rx.url });
      for (const [m, id] of [
        [a, pa],
        [b, pb],
      ] as const)
        assert.equal((await simulate(m, id, { card: '4111111111111111' })).json().status, 'Succeeded');
      await t.gw.services.callbacks.drain();
      const deliveries = async () =>
        Object.fromEntries(
          (
            await t.gw.services.db.query<{ pay_id: string; attempts: number; next_attempt_at: Date }>(
              'SELECT pay_id, attempts, next_attempt_at FROM callback_deliveries WHERE pay_id = ANY ($1)',
              [[pa, pb]],
            )
          ).rows.map((r) => [r.pay_id, r]),
        );
      const first = await deliveries();
      assert.equal(first[pa]!.attempts, 1);
      assert.equal(first[pb]!.attempts, 1);
      assert.equal((await a.post('/sandbox/v1/clock', { advanceSeconds: 61 })).statusCode, 200);
      await t.gw.services.callbacks.drain();
      const second = await deliveries();
      assert.equal(second[pa]!.attempts, 2, "A's retry was due on A's clock");
      assert.equal(second[pb]!.attempts, 1, "B's retry waits for B's clock");
      assert.equal(second[pb]!.next_attempt_at.getTime(), first[pb]!.next_attempt_at.getTime());
      // A's next retry was scheduled on A's clock: 5 minutes after A's now, far past B's.
      assert.ok(second[pa]!.next_attempt_at.getTime() - second[pb]!.next_attempt_at.getTime() > DAY * 1000);
      rx.answers = [200];
    });

    it("counts a bank-profile merchant's daily limit by its own business day: a new day for C, not for D", async () => {
      const [c, d] = [
        await MerchantClient.create(t, { ...EVERYTHING, profile: 'bank', dailyLimit: '20.00' }),
        await MerchantClient.create(t, { ...EVERYTHING, profile: 'bank', dailyLimit: '20.00' }),
      ];
      for (const m of [c, d]) {
        assert.equal(
          (await m.createPayment(basicPayment({ amount: { currency: 'GEL', total: '20.00' } }))).statusCode,
          200,
        );
        const over = await m.createPayment(basicPayment({ amount: { currency: 'GEL', total: '1.00' } }));
        assert.equal(over.statusCode, 400);
        assert.match(over.json().detail, /daily limit of 20\.00/);
      }
      assert.equal((await c.post('/sandbox/v1/clock', { advanceSeconds: DAY })).statusCode, 200);
      await fresh(c, d);
      const nextDay = await c.createPayment(basicPayment({ amount: { currency: 'GEL', total: '1.00' } }));
      assert.equal(nextDay.statusCode, 200, nextDay.body);
      assert.equal(
        (await d.createPayment(basicPayment({ amount: { currency: 'GEL', total: '1.00' } }))).statusCode,
        400,
        "D's day is not over",
      );
      const days = (
        await t.gw.services.db.query<{ client_id: string; n: number }>(
          'SELECT client_id, count(*)::int AS n FROM merchant_daily_volume WHERE client_id = ANY ($1) GROUP BY client_id',
          [[c.credentials.clientId, d.credentials.clientId]],
        )
      ).rows;
      assert.deepEqual(Object.fromEntries(days.map((r) => [r.client_id, r.n])), {
        [c.credentials.clientId]: 2,
        [d.credentials.clientId]: 1,
      });
    });

    it('merchant credentials reach only their own merchant: simulate, test callback and reset of another are 404', async () => {
      await fresh(a, b);
      const pa = await create(a);
      const foreign = await simulate(b, pa, { card: '4111111111111111' });
      assert.equal(foreign.statusCode, 404);
      const unknown = await simulate(b, '0'.repeat(32), { card: '4111111111111111' });
      assert.equal(foreign.json().systemCode, unknown.json().systemCode);
      assert.equal(foreign.json().systemCode, 'sandbox.404.001');
      assert.equal(await status(a, pa), 'Created');
      assert.equal((await b.post('/sandbox/v1/reset', { clientId: a.credentials.clientId })).statusCode, 404);
      assert.equal(
        (await b.post('/sandbox/v1/callbacks/test', { clientId: a.credentials.clientId, url: rx.url })).statusCode,
        404,
      );
      const own = await b.post('/sandbox/v1/callbacks/test', { url: 'http://127.0.0.1:1/nothing' });
      assert.equal(own.statusCode, 200, own.body);
      // A wrong token with an API key is the merchant API's 401, never the operator's view.
      const forged = await t.app.inject({
        method: 'GET',
        url: '/sandbox/v1/clock',
        headers: { apikey: a.credentials.apiKey, authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(forged.statusCode, 401);
      assert.equal(forged.json().systemCode, 'sandbox.401.002');
      const noCreds = await t.app.inject({ method: 'GET', url: '/sandbox/v1/clock' });
      assert.equal(noCreds.statusCode, 401);
      // The operator names the merchant to reset.
      const unnamed = await t.admin('POST', '/sandbox/v1/reset', {});
      assert.equal(unnamed.statusCode, 400);
      assert.equal(unnamed.json().invalidParams[0].name, 'clientId');
    });

    it("reset deletes exactly the merchant's data; the other's stays, and the merchant goes on working", async () => {
      await fresh(a, b);
      const saved = await create(a, { saveCard: true, callbackUrl: rx.url });
      assert.equal((await simulate(a, saved, { card: '4111111111111111' })).json().status, 'Succeeded');
      const refunded = await create(a);
      await simulate(a, refunded, { card: '4111111111111111' });
      assert.equal((await a.post(`/v1/gateway/payments/${refunded}/cancel`, { amount: 5 })).statusCode, 200);
      assert.equal((await a.post('/sandbox/v1/faults', { operation: 'refund', outcome: 'decline' })).statusCode, 201);
      const kept = await create(b, { callbackUrl: rx.url });
      await simulate(b, kept, { card: '4111111111111111' });
      await t.gw.services.callbacks.drain();
      const counts = async (clientId: string) => {
        const q = (sql: string) => t.gw.services.db.query<{ n: number }>(sql, [clientId]).then((r) => r.rows[0]!.n);
        return {
          payments: await q('SELECT count(*)::int AS n FROM payments WHERE client_id = $1'),
          events: await q(
            'SELECT count(*)::int AS n FROM payment_events e JOIN payments p USING (pay_id) WHERE p.client_id = $1',
          ),
          cards: await q('SELECT count(*)::int AS n FROM saved_cards WHERE client_id = $1'),
          deliveries: await q('SELECT count(*)::int AS n FROM callback_deliveries WHERE client_id = $1'),
          requests: await q('SELECT count(*)::int AS n FROM merchant_requests WHERE client_id = $1'),
          faults: await q('SELECT count(*)::int AS n FROM sandbox_faults WHERE client_id = $1'),
        };
      };
      const aBefore = await counts(a.credentials.clientId);
      const bBefore = await counts(b.credentials.clientId);
      assert.ok(
        aBefore.payments >= 2 && aBefore.cards === 1 && aBefore.deliveries >= 1 && aBefore.faults === 1,
        JSON.stringify(aBefore),
      );
      const reset = await a.post('/sandbox/v1/reset', {});
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal(reset.json().clientId, a.credentials.clientId);
      assert.equal(reset.json().deleted.payments, aBefore.payments);
      assert.equal(reset.json().deleted.savedCards, 1);
      assert.equal(reset.json().deleted.faults, 1);
      // The request log is written in batches after the answers: the reset's own line may come later.
      assert.ok(
        reset.json().deleted.requests >= aBefore.requests && aBefore.requests > 0,
        JSON.stringify(reset.json()),
      );
      const aAfter = await counts(a.credentials.clientId);
      assert.deepEqual(
        { ...aAfter, requests: 0 },
        { payments: 0, events: 0, cards: 0, deliveries: 0, requests: 0, faults: 0 },
      );
      const bAfter = await counts(b.credentials.clientId);
      assert.deepEqual({ ...bAfter, requests: 0 }, { ...bBefore, requests: 0 });
      assert.ok(bAfter.requests >= bBefore.requests);
      assert.equal((await a.getPayment(saved)).statusCode, 404);
      assert.equal(await status(b, kept), 'Succeeded');
      // The merchant, its credentials and its clock stay.
      assert.equal((await a.get('/sandbox/v1/clock')).json().merchantOffsetSeconds, 2 * DAY + 31 * 60 + 8 * DAY + 61);
      assert.equal(await status(a, await create(a)), 'Created');
      // The operator resets any merchant by name.
      const byAdmin = await t.admin('POST', '/sandbox/v1/reset', { clientId: b.credentials.clientId });
      assert.equal(byAdmin.statusCode, 200, byAdmin.body);
      assert.equal((await counts(b.credentials.clientId)).payments, 0);
      assert.equal((await t.admin('POST', '/sandbox/v1/reset', { clientId: 'no-such-merchant' })).statusCode, 404);
    });

    it('reports the age of the oldest pending callback on the gateway clock, also for a merchant whose own clock is ahead', async () => {
      const own = await startTestGateway(backend);
      try {
        const m = await MerchantClient.create(own);
        assert.equal((await m.post('/sandbox/v1/clock', { advanceSeconds: 2 * DAY })).statusCode, 200);
        const payId = (await m.createPayment(basicPayment({ callbackUrl: rx.url }))).json().payId as string;
        assert.equal(
          (await m.post(`/sandbox/v1/payments/${payId}/simulate`, { card: '4111111111111111' })).json().status,
          'Succeeded',
        );
        // No background work here: the callback waits, and the metric is read 90 s later.
        const backlog = await selectCallbackBacklog(own.gw.services.db, new Date(own.clock.now().getTime() + 90_000));
        assert.equal(backlog.pending, 1);
        assert.ok(
          backlog.oldestSeconds >= 89 && backlog.oldestSeconds < 300,
          `oldest ${backlog.oldestSeconds} s (it read 0 when the merchant's time was taken for the gateway's)`,
        );
      } finally {
        await own.close();
      }
    });

    it("counts in a merchant's `expired` only its own payments, when the same sweep expires another merchant's", async () => {
      await fresh(a, b);
      const pa = await create(a, { expirationMinutes: 5 });
      const pb = await create(b, { expirationMinutes: 5 });
      // B's payment is due already but nothing has swept it yet (no background work in this test).
      await t.gw.services.db.query(
        "UPDATE payments SET expires_at = expires_at - interval '1 hour' WHERE pay_id = $1",
        [pb],
      );
      const moved = (await a.post('/sandbox/v1/clock', { advanceSeconds: 301 })).json();
      assert.equal(moved.expired, 1, 'A learns of its own payment only');
      assert.equal(await status(a, pa), 'Expired');
      assert.equal(await status(b, pb), 'Expired', "the sweep did expire B's payment");
    });

    it('the admin token keeps the global view: its clock moves every merchant, and it simulates any payment', async () => {
      await fresh(a, b);
      const pa = await create(a, { expirationMinutes: 5 });
      const pb = await create(b, { expirationMinutes: 5 });
      const aOwn = (await a.get('/sandbox/v1/clock')).json().merchantOffsetSeconds;
      const moved = (await t.admin('POST', '/sandbox/v1/clock', { advanceSeconds: 301 })).json();
      assert.equal(moved.clientId, undefined);
      assert.equal(moved.expired, 2);
      assert.equal((await a.get('/sandbox/v1/clock')).json().merchantOffsetSeconds, aOwn);
      await fresh(a, b);
      assert.equal(await status(a, pa), 'Expired');
      assert.equal(await status(b, pb), 'Expired');
      const pc = await create(a);
      const paid = await t.admin('POST', `/sandbox/v1/payments/${pc}/simulate`, { card: '4111111111111111' });
      assert.equal(paid.json().status, 'Succeeded');
    });

    it('karibche sandbox create prints a fresh merchant with everything on and its own clock; sandbox reset empties it', {
      timeout: 120_000,
    }, async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as { port: number }).port;
      const env = { ...process.env, KARIBCHE_URL: `http://127.0.0.1:${port}`, KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN };
      const cli = (...args: string[]) => run(process.execPath, ['bin/karibche.js', ...args], { env });
      const out = JSON.parse((await cli('sandbox', 'create', '--register-callback', 'http://127.0.0.1:*')).stdout);
      assert.deepEqual(Object.keys(out.credentials).sort(), ['apiKey', 'callbackSecret', 'clientId', 'clientSecret']);
      assert.equal(out.baseUrl, `http://127.0.0.1:${port}`);
      const m = out.merchant;
      assert.deepEqual(
        [m.currencies, m.methods, m.splitEnrolled, m.saveCardEnabled, m.testMode, m.status],
        [['GEL', 'USD', 'EUR'], [4, 5, 6, 7, 8, 9, 14], true, true, false, 'active'],
      );
      assert.equal(out.clock.merchantOffsetSeconds, 0);
      // Its credentials work at once, on its own clock.
      const c = new MerchantClient(t.app, out.credentials, await accessToken(t.app, out.credentials));
      const own = (await c.get('/sandbox/v1/clock')).json();
      assert.deepEqual([own.clientId, own.merchantOffsetSeconds], [out.credentials.clientId, 0]);
      const payId = await create(c, { preAuth: true, saveCard: true });
      assert.equal((await simulate(c, payId, { card: '4111111111111111' })).json().status, 'WaitingConfirm');
      const second = JSON.parse((await cli('sandbox', 'create')).stdout);
      assert.notEqual(second.credentials.clientId, out.credentials.clientId);
      const reset = JSON.parse((await cli('sandbox', 'reset', out.credentials.clientId, '--json')).stdout);
      assert.equal(reset.deleted.payments, 1);
      assert.equal((await c.getPayment(payId)).statusCode, 404);
      await assert.rejects(cli('sandbox', 'reset'), /needs a CLIENT_ID/);
      await assert.rejects(cli('sandbox', 'reset', 'nobody'), /404 Merchant not found/);
    });
  });
}

describePostgres("a merchant's clock across processes [postgres]", () => {
  const ctx = useProcesses(1);

  it("a merchant's advance in one process reaches the other (by notification, and on refresh); the other's sweep expires by it", async () => {
    const { t } = ctx;
    const second = ctx.others[0]!;
    const a = await MerchantClient.create(t);
    const b = await MerchantClient.create(t);
    const id = a.credentials.clientId;
    const pa = (await a.createPayment(basicPayment({ expirationMinutes: 10 }))).json().payId;
    const pb = (await b.createPayment(basicPayment({ expirationMinutes: 10 }))).json().payId;
    assert.equal((await a.post('/sandbox/v1/clock', { advanceSeconds: 3600 })).statusCode, 200);
    const deadline = Date.now() + 10_000;
    while (second.services.clock.merchantOffset(id) < 3600_000 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(second.services.clock.merchantOffset(id), 3600_000);
    assert.equal(second.services.clock.merchantOffset(b.credentials.clientId), 0);
    const third = await secondGateway(t);
    try {
      assert.equal(
        third.services.clock.merchantOffset(id),
        3600_000,
        'a process started later reads the offset at start',
      );
    } finally {
      await third.close();
      await third.services.db.close();
    }
    // Expire through the other process: its view of A's payment, through its own API.
    const other = new MerchantClient(second.app, a.credentials, a.token);
    assert.equal((await other.getPayment(pa)).json().status, 'Expired');
    const otherB = new MerchantClient(second.app, b.credentials, b.token);
    assert.equal((await otherB.getPayment(pb)).json().status, 'Created');
  });
});

describe("a merchant's sandbox in production", () => {
  it('does not exist: clock, reset and simulate are 404 with merchant credentials and the admin token alike', async () => {
    const t = await startTestGateway(BACKENDS[0]!, {
      KARIBCHE_MODE: 'production',
      KARIBCHE_ACQUIRER_MODULE: TEST_ACQUIRER_MODULE,
    });
    try {
      const m = await MerchantClient.create(t);
      const payId = (await m.createPayment(basicPayment())).json().payId;
      for (const [method, url, body] of [
        ['GET', '/sandbox/v1/clock', undefined],
        ['POST', '/sandbox/v1/clock', { advanceSeconds: 60 }],
        ['POST', '/sandbox/v1/reset', {}],
        ['POST', `/sandbox/v1/payments/${payId}/simulate`, { card: '4111111111111111' }],
      ] as const) {
        const asMerchant = method === 'GET' ? await m.get(url) : await m.post(url, body);
        assert.equal(asMerchant.statusCode, 404, `${method} ${url}`);
        assert.equal((await t.admin(method, url, body)).statusCode, 404, `${method} ${url} (admin)`);
      }
      assert.equal((await m.getPayment(payId)).json().status, 'Created');
      assert.equal(t.gw.services.clock.merchantOffset(m.credentials.clientId), 0);
    } finally {
      await t.close();
    }
  });
});
