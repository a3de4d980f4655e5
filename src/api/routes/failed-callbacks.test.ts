import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../testing/databases.ts';
import { MerchantClient, basicPayment, countRows, useGateway } from '../../testing/harness.ts';
import { Receiver } from '../../testing/receiver.ts';

for (const backend of BACKENDS) {
  describe(`failed callbacks and bulk redelivery [${backend}]`, () => {
    const ctx = useGateway(backend);
    let rx: Receiver;
    let m: MerchantClient;
    const paid: string[] = [];
    before(async () => {
      rx = await new Receiver().start();
      rx.answers = [200];
      // Registered addresses but no URL anywhere: every callback is undeliverable.
      m = await MerchantClient.create(ctx.t, { callbackUrlPrefixes: ['http://127.0.0.1:*'] });
      for (let i = 0; i < 3; i++) {
        const id = (await m.createPayment(basicPayment())).json().payId;
        const sim = await ctx.t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' });
        assert.equal(sim.statusCode, 200, sim.body);
        paid.push(id);
      }
      await ctx.t.gw.services.callbacks.drain();
    });
    after(() => rx.stop());

    const problems = (qs = '') => m.get(`/v1/gateway/callbacks?${qs}`);
    const open = () => countRows(ctx.t, "callback_deliveries WHERE status = 'undeliverable'");

    it('lists undeliverable callbacks newest first, paged by cursor', async () => {
      const first = (await problems('state=undeliverable&limit=2')).json();
      assert.equal(first.items.length, 2);
      assert.ok(first.nextCursor);
      const second = (await problems(`state=undeliverable&limit=2&cursor=${first.nextCursor}`)).json();
      assert.equal(second.items.length, 1);
      assert.equal(second.nextCursor, null);
      const all = [...first.items, ...second.items];
      assert.deepEqual(new Set(all.map((c: { payId: string }) => c.payId)), new Set(paid));
      for (const c of all) assert.equal(c.status, 'undeliverable');
      assert.equal((await problems('state=failed')).json().items.length, 0);
      const other = await MerchantClient.create(ctx.t);
      assert.equal((await other.get('/v1/gateway/callbacks')).json().items.length, 0, 'another merchant sees none');
    });

    it('rejects bad queries and bodies with 400 and changes nothing', async () => {
      for (const qs of ['state=delivered', 'limit=0', 'limit=x', 'cursor=abc']) {
        const res = await problems(qs);
        assert.equal(res.statusCode, 400, `${qs}: ${res.body}`);
      }
      const before = await open();
      for (const body of [
        { callbackIds: [] },
        { callbackIds: ['evt_x'] },
        { state: 'pending' },
        { callbackIds: ['evt_1'], state: 'failed' },
        {},
        { other: 1 },
        { callbackIds: 'evt_1' },
      ]) {
        const res = await m.post('/v1/gateway/callbacks/redeliver', body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().type.endsWith(res.json().systemCode), true);
      }
      assert.equal(await open(), before);
    });

    it('redelivers by id (skipping ids that are not its problem callbacks), then every one in a state', async () => {
      await ctx.t.admin('PATCH', `/admin/v1/merchants/${m.credentials.clientId}`, { defaultCallbackUrl: rx.url });
      const list = (await problems()).json().items as { callbackId: string }[];
      const one = await m.post('/v1/gateway/callbacks/redeliver', {
        callbackIds: [list[0]!.callbackId, 'evt_999999999'],
      });
      assert.equal(one.statusCode, 202, one.body);
      assert.deepEqual(one.json(), {
        items: [{ callbackId: list[0]!.callbackId, status: 'pending' }],
        skipped: ['evt_999999999'],
      });
      assert.equal(await open(), 2);
      const rest = await m.post('/v1/gateway/callbacks/redeliver', { state: 'undeliverable' });
      assert.equal(rest.statusCode, 202, rest.body);
      assert.equal(rest.json().items.length, 2);
      const before = rx.received.length;
      await ctx.t.gw.services.callbacks.drain();
      assert.equal(rx.received.length, before + 3);
      assert.deepEqual(new Set(rx.received.slice(before).map((r) => JSON.parse(r.body).PaymentId)), new Set(paid));
      assert.equal((await problems()).json().items.length, 0);
    });
  });
}
