import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../../testing/databases.ts';
import { MerchantClient, basicPayment, createPaid, useGateway } from '../../testing/harness.ts';

for (const backend of BACKENDS) {
  describe(`GET /v1/gateway/payments [${backend}]`, () => {
    const ctx = useGateway(backend);
    const list = (qs: string) => ctx.m.get(`/v1/gateway/payments?${qs}`);
    const ids: string[] = [];

    it('pages newest first with a keyset cursor until nextCursor is null', async () => {
      for (let i = 0; i < 5; i++) {
        const r = await ctx.m.createPayment(
          basicPayment({ amount: { currency: 'GEL', total: 10 + i }, merchantPaymentId: `o-${i}` }),
        );
        assert.equal(r.statusCode, 200, r.body);
        ids.push(r.json().payId);
      }
      const seen: string[] = [];
      let cursor = '';
      for (let page = 0; page < 5; page++) {
        const res = await list(`limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.ok(body.items.length <= 2);
        seen.push(...body.items.map((p: { payId: string }) => p.payId));
        if (!body.nextCursor) break;
        cursor = body.nextCursor;
      }
      assert.deepEqual(new Set(seen), new Set(ids));
      assert.equal(seen.length, 5);
      const one = (await list(`payId=${ids[0]}`)).json().items[0];
      const got = (await ctx.m.getPayment(ids[0]!)).json();
      assert.deepEqual(one, got, 'items are what get-payment returns');
    });

    it('filters by merchantPaymentId, amount range, status and currency', async () => {
      assert.deepEqual(
        (await list('merchantPaymentId=o-3')).json().items.map((p: { payId: string }) => p.payId),
        [ids[3]],
      );
      const ranged = (await list('minAmount=11&maxAmount=12.5'))
        .json()
        .items.map((p: { amount: number }) => p.amount)
        .sort();
      assert.deepEqual(ranged, [11, 12]);
      assert.equal((await list('status=Succeeded')).json().items.length, 0);
      assert.equal((await list('currency=USD')).json().items.length, 0);
      const paid = await createPaid(ctx.t, ctx.m);
      assert.deepEqual(
        (await list('status=Succeeded')).json().items.map((p: { payId: string }) => p.payId),
        [paid],
      );
    });

    it('does not show another merchant its payments', async () => {
      const other = await MerchantClient.create(ctx.t);
      assert.deepEqual((await other.get('/v1/gateway/payments')).json(), { items: [], nextCursor: null });
    });

    it('rejects bad filters with 400 listing every field', async () => {
      for (const qs of [
        'status=Nope',
        'limit=0',
        'limit=101',
        'cursor=zz',
        'minAmount=-1',
        'minAmount=5&maxAmount=1',
        'from=yesterday',
        'currency=gel',
        'method=x',
      ]) {
        const res = await list(qs);
        assert.equal(res.statusCode, 400, `${qs}: ${res.body}`);
        assert.match(res.json().systemCode, /^list-payments\.400\./);
      }
      const res = await list('status=Nope&limit=0');
      assert.deepEqual(
        res
          .json()
          .invalidParams.map((p: { name?: string; field?: string }) => p.name ?? p.field)
          .sort(),
        ['limit', 'status'],
      );
    });

    it('requires authentication', async () => {
      const res = await ctx.t.app.inject({ method: 'GET', url: '/v1/gateway/payments' });
      assert.equal(res.statusCode, 401);
    });
  });
}
