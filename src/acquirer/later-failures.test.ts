// The test cards whose later operations fail (README test-card table): approved at payment, then
// 4000 0000 0000 0341 declines every refund and void, 4000 0000 0000 0259 declines the completion,
// and 4000 0000 0000 5126 makes the refund but its answer is lost until the reconciler asks again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reconcile } from '../payments/reconciler.ts';
import { BACKENDS } from '../testing/databases.ts';
import { accessToken, createPaid, useGateway } from '../testing/harness.ts';

for (const backend of BACKENDS) {
  describe(`test cards whose later operations fail [${backend}]`, () => {
    const ctx = useGateway(backend);
    const get = async (id: string) => (await ctx.m.getPayment(id)).json();
    const post = async (url: string, body: unknown) => {
      ctx.m.token = await accessToken(ctx.t.app, ctx.m.credentials);
      return ctx.m.post(url, body);
    };
    const refunds = async (id: string) =>
      (
        await ctx.t.gw.services.db.query<{ status: string }>(
          `SELECT status FROM payment_operations WHERE pay_id = $1 ORDER BY id`,
          [id],
        )
      ).rows.map((r) => r.status);

    it('4000 0000 0000 0341: approved, then every refund and void is declined (decline_general) and nothing moves', async () => {
      const paid = await createPaid(ctx.t, ctx.m, {}, '4000000000000341');
      assert.equal((await get(paid)).status, 'Succeeded');
      for (const body of [{}, { amount: '1.00' }]) {
        const res = await post(`/v1/gateway/payments/${paid}/cancel`, body);
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual([res.json().systemCode, res.json().resultCode], ['cancel-payment.400.055', 'decline_general']);
      }
      const p = await get(paid);
      assert.deepEqual([p.status, p.returnedAmount], ['Succeeded', 0]);
      const held = await createPaid(ctx.t, ctx.m, { preAuth: true }, '4000000000000341');
      const voided = await post(`/v1/gateway/payments/${held}/cancel`, {});
      assert.equal(voided.statusCode, 400, voided.body);
      assert.equal((await get(held)).status, 'WaitingConfirm');
      // The same card, saved and charged later, keeps failing its refunds.
      const saver = await createPaid(ctx.t, ctx.m, { saveCard: true }, '4000000000000341');
      const recId = (await get(saver)).recurringCard.recId as string;
      const charged = await post('/v1/gateway/payments/execution', {
        recId,
        money: { amount: '2.00', currency: 'GEL' },
      });
      assert.equal(charged.json().status, 'Succeeded', charged.body);
      assert.equal((await post(`/v1/gateway/payments/${charged.json().payId}/cancel`, {})).statusCode, 400);
    });

    it('4000 0000 0000 0259: the pre-authorisation is approved and its completion declined; a void still works', async () => {
      const held = await createPaid(ctx.t, ctx.m, { preAuth: true }, '4000000000000259');
      const res = await post(`/v1/gateway/payments/${held}/completion`, { amount: '5.00' });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual([res.json().systemCode, res.json().resultCode], ['complete-payment.400.055', 'decline_general']);
      let p = await get(held);
      assert.deepEqual([p.status, p.confirmedAmount], ['WaitingConfirm', 0]);
      assert.equal((await post(`/v1/gateway/payments/${held}/cancel`, {})).statusCode, 200);
      p = await get(held);
      assert.equal(p.status, 'Returned');
    });

    it('4000 0000 0000 5126: the refund is made but its answer lost; the reconciler finishes it once, on the sandbox clock', async () => {
      const paid = await createPaid(ctx.t, ctx.m, {}, '4000000000005126');
      const lost = await post(`/v1/gateway/payments/${paid}/cancel`, {});
      assert.equal(lost.statusCode, 503, lost.body);
      assert.equal((await get(paid)).status, 'CancelPaymentProcessing');
      const s = ctx.t.gw.services;
      await reconcile(s); // too early: the reconciler waits reconcileAfterSeconds of sandbox time
      assert.equal((await get(paid)).status, 'CancelPaymentProcessing');
      await s.sharedClock.advance(s.config.reconcileAfterSeconds + 1);
      await reconcile(s);
      const p = await get(paid);
      assert.deepEqual([p.status, p.returnedAmount], ['Returned', 10]);
      assert.deepEqual(await refunds(paid), ['done']);
    });
  });
}
