import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Gateway } from '../gateway.ts';
import { BACKENDS } from '../testing/databases.ts';
import { describePostgres } from '../testing/postgres-only.ts';
import {
  MerchantClient,
  accessToken,
  basicPayment,
  secondGateway,
  startTestGateway,
  useGateway,
  type TestGateway,
} from '../testing/harness.ts';

const events = async (t: TestGateway, payId: string) =>
  (
    await t.gw.services.db.query<{ seq: number; status: string; final: boolean }>(
      'SELECT seq, status, final FROM payment_events WHERE pay_id = $1 ORDER BY seq',
      [payId],
    )
  ).rows;

for (const backend of BACKENDS) {
  describe(`sandbox clock and expiry [${backend}]`, () => {
    const ctx = useGateway(backend);

    it('reads and advances the clock; refuses to go back', async () => {
      const read = await ctx.t.admin('GET', '/sandbox/v1/clock');
      assert.equal(read.statusCode, 200);
      const before = new Date(read.json().now).getTime();
      const adv = await ctx.t.admin('POST', '/sandbox/v1/clock', { advanceSeconds: 3600 });
      assert.equal(adv.statusCode, 200);
      assert.ok(new Date(adv.json().now).getTime() - before >= 3600_000);
      assert.equal(adv.json().offsetSeconds, read.json().offsetSeconds + 3600);
      for (const advanceSeconds of [0, -5, 1.5, 400 * 86400 + 1, '60']) {
        const bad = await ctx.t.admin('POST', '/sandbox/v1/clock', { advanceSeconds });
        assert.equal(bad.statusCode, 400, String(advanceSeconds));
        assert.equal(bad.json().systemCode, 'sandbox.400.001');
      }
      ctx.m.token = await accessToken(ctx.t.app, ctx.m.credentials);
    });

    it('expires Created payments after expirationMinutes, with one final event each', async () => {
      const short = (await ctx.m.createPayment(basicPayment({ expirationMinutes: 1 }))).json().payId;
      const long = (await ctx.m.createPayment(basicPayment({ expirationMinutes: 10 }))).json().payId;
      const r1 = await ctx.t.admin('POST', '/sandbox/v1/clock', { advanceSeconds: 59 });
      assert.equal(r1.json().expired, 0);
      assert.equal((await ctx.m.getPayment(short)).json().status, 'Created');
      const r2 = await ctx.t.admin('POST', '/sandbox/v1/clock', { advanceSeconds: 1 });
      assert.equal(r2.json().expired, 1);
      assert.equal((await ctx.m.getPayment(short)).json().status, 'Expired');
      assert.equal((await ctx.m.getPayment(long)).json().status, 'Created');
      // Creation is the initial state; the first change is event 1.
      assert.deepEqual(await events(ctx.t, short), [{ seq: 1, status: 'Expired', final: true }]);
      // Sweeping again changes nothing.
      assert.equal(await ctx.t.gw.services.sweeper.sweep(), 0);
      assert.equal((await events(ctx.t, short)).length, 1);
    });

    it('shows a due payment as Expired on read even before a sweep', async () => {
      const id = (await ctx.m.createPayment(basicPayment({ expirationMinutes: 1 }))).json().payId;
      await ctx.t.gw.services.sharedClock.advance(61); // moves time without sweeping
      const g = (await ctx.m.getPayment(id)).json();
      assert.equal(g.status, 'Expired');
      assert.deepEqual(
        (await events(ctx.t, id)).map((e) => e.status),
        ['Expired'],
      );
      assert.equal(await ctx.t.gw.services.sweeper.sweep(), 0);
    });

    it('expires a large batch in one sweep', async () => {
      const ids = [];
      for (let i = 0; i < 30; i++)
        ids.push((await ctx.m.createPayment(basicPayment({ expirationMinutes: 2 }))).json().payId);
      const res = await ctx.t.admin('POST', '/sandbox/v1/clock', { advanceSeconds: 120 });
      assert.equal(res.json().expired, 30);
      const { rows } = await ctx.t.gw.services.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM payment_events WHERE pay_id = ANY($1) AND status = 'Expired'`,
        [ids],
      );
      assert.equal(rows[0]!.n, 30);
    });
  });
}

describePostgres('the sandbox clock across processes [postgres]', () => {
  describe('several gateway processes on one PostgreSQL', () => {
    let t: TestGateway;
    let second: Gateway;
    let third: Gateway;
    before(async () => {
      t = await startTestGateway('postgres');
      second = await secondGateway(t);
      third = await secondGateway(t);
    });
    after(async () => {
      for (const g of [second, third]) {
        await g.close();
        await g.services.db.close();
      }
      await t.close();
    });

    it('shares the clock: an advance in one process reaches the others', async () => {
      const before = second.services.clock.offset;
      await t.admin('POST', '/sandbox/v1/clock', { advanceSeconds: 7200 });
      const deadline = Date.now() + 5_000;
      while (second.services.clock.offset < before + 7200_000 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(second.services.clock.offset, t.clock.offset);
      await third.services.sharedClock.refresh();
      assert.equal(third.services.clock.offset, t.clock.offset);
    });

    it('concurrent sweepers in three processes expire each payment exactly once', async () => {
      const m = await MerchantClient.create(t);
      const ids: string[] = [];
      for (let i = 0; i < 120; i++)
        ids.push((await m.createPayment(basicPayment({ expirationMinutes: 1 }))).json().payId);
      await t.gw.services.sharedClock.advance(61);
      for (const g of [second, third]) await g.services.sharedClock.refresh();
      const counts = await Promise.all([
        t.gw.services.sweeper.sweep(),
        second.services.sweeper.sweep(),
        third.services.sweeper.sweep(),
      ]);
      assert.equal(
        counts.reduce((a, b) => a + b, 0),
        120,
        `per process ${counts}`,
      );
      const { rows } = await t.gw.services.db.query<{ pay_id: string; n: number }>(
        `SELECT pay_id, count(*)::int AS n FROM payment_events WHERE pay_id = ANY($1) AND status = 'Expired' GROUP BY pay_id`,
        [ids],
      );
      assert.equal(rows.length, 120);
      assert.ok(rows.every((r) => r.n === 1));
    });

    it('a merchant change in one process reaches the others’ caches', async () => {
      const m = await MerchantClient.create(t);
      const other = new MerchantClient(second.app, m.credentials, m.token);
      assert.equal(
        (await other.createPayment(basicPayment({ amount: { currency: 'USD', total: 1 } }))).statusCode,
        200,
      );
      await t.admin('PATCH', `/admin/v1/merchants/${m.credentials.clientId}`, { currencies: ['GEL'] });
      const deadline = Date.now() + 5_000;
      let code = 200;
      while (code === 200 && Date.now() < deadline) {
        code = (await other.createPayment(basicPayment({ amount: { currency: 'USD', total: 1 } }))).statusCode;
        if (code === 200) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(code, 400);
    });
  });
});
