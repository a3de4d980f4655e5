// POST /sandbox/v1/reset racing live traffic (issue 26). A reset while a refund, a completion, a
// saved-card charge or a card attempt is at the acquirer is refused (sandbox.409.006) and deletes
// nothing; the held request then finishes normally and its acquirer action is kept. The acquirer is
// held by the test (the gateway's acquirer method waits on a gate the test opens), so each race is
// deterministic. On PostgreSQL, requests that run while a reset holds its locks get a clear answer:
// a payment created meanwhile is not half-deleted (a foreign-key violation, 23503, was a 500), and an
// operation on a deleted payment is a 404.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { describePostgres } from '../testing/postgres-only.ts';
import { EVERYTHING, MerchantClient, createPaid, useGateway, type TestGateway } from '../testing/harness.ts';
import { waitUntil } from '../testing/wait.ts';

type Held = 'refund' | 'capture' | 'authorise';

/** Makes the gateway's acquirer wait in `call` until released; `reached` resolves once it waits. */
function holdAcquirer(t: TestGateway, call: Held): { reached: Promise<void>; release: () => void } {
  const acquirer = t.gw.services.acquirer as unknown as Record<Held, (...args: unknown[]) => Promise<unknown>>;
  const original = acquirer[call];
  let reached!: () => void;
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const arrived = new Promise<void>((r) => (reached = r));
  acquirer[call] = async (...args: unknown[]) => {
    reached();
    await gate;
    return original(...args);
  };
  return {
    reached: arrived,
    release: () => {
      acquirer[call] = original;
      open();
    },
  };
}

const form = (cookie: string) => ({ 'content-type': 'application/x-www-form-urlencoded', cookie });

for (const backend of BACKENDS) {
  describe(`sandbox reset while the acquirer is working [${backend}]`, () => {
    const ctx = useGateway(backend);
    const db = () => ctx.t.gw.services.db;
    const reset = () => ctx.m.post('/sandbox/v1/reset', {});
    /** A refused reset: 409 with its own code, and nothing of the merchant deleted. */
    const refusedReset = async (what: string) => {
      const before = await paymentsOf(ctx.m);
      const res = await reset();
      assert.equal(res.statusCode, 409, `${what}: ${res.body}`);
      assert.equal(res.json().systemCode, 'sandbox.409.006', res.body);
      assert.ok(res.headers['retry-after'], 'Retry-After');
      assert.equal(await paymentsOf(ctx.m), before, `${what}: nothing deleted`);
    };
    const paymentsOf = async (m: MerchantClient) =>
      (
        await db().query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE client_id = $1', [
          m.credentials.clientId,
        ])
      ).rows[0]!.n;

    it('a refund at the acquirer: the reset is refused, the refund finishes and is kept', async () => {
      const payId = await createPaid(ctx.t, ctx.m);
      const hold = holdAcquirer(ctx.t, 'refund');
      const refund = ctx.m.post(`/v1/gateway/payments/${payId}/cancel`, { amount: 4 });
      await hold.reached;
      await refusedReset('refund in flight');
      hold.release();
      const done = await refund;
      assert.equal(done.statusCode, 200, done.body);
      assert.deepEqual([done.json().status, done.json().returnedAmount], ['PartialReturned', 4]);
      const kept = await db().query(
        `SELECT 1 FROM payment_operations WHERE pay_id = $1 AND kind = 'refund' AND status = 'done'`,
        [payId],
      );
      assert.equal(kept.rows.length, 1, 'the refund the acquirer made is recorded');
    });

    it('a completion and a saved-card charge at the acquirer: the reset is refused, both finish', async () => {
      const held = await createPaid(ctx.t, ctx.m, { preAuth: true });
      const capture = holdAcquirer(ctx.t, 'capture');
      const completion = ctx.m.post(`/v1/gateway/payments/${held}/completion`, { amount: 10 });
      await capture.reached;
      await refusedReset('completion in flight');
      capture.release();
      assert.equal((await completion).json().status, 'Succeeded');

      const first = await createPaid(ctx.t, ctx.m, { saveCard: true, amount: { currency: 'GEL', total: 0 } });
      const recId = (await ctx.m.getPayment(first)).json().recurringCard.recId as string;
      const authorise = holdAcquirer(ctx.t, 'authorise');
      const charge = ctx.m.post('/v1/gateway/payments/execution', { recId, money: { amount: 7, currency: 'GEL' } });
      await authorise.reached;
      await refusedReset('saved-card charge in flight');
      authorise.release();
      const charged = await charge;
      assert.equal(charged.statusCode, 200, charged.body);
      assert.equal(charged.json().status, 'Succeeded');
    });

    it("a card attempt through the checkout form at the acquirer: the reset is refused, the customer's payment goes through; then the reset empties everything", async () => {
      const payId = (
        await ctx.m.createPayment({ amount: { currency: 'GEL', total: 10 }, returnurl: 'https://shop.example/r' })
      ).json().payId as string;
      const page = await ctx.t.app.inject({ method: 'GET', url: `/checkout/${payId}` });
      const cookie = String(page.headers['set-cookie']).split(';')[0]!;
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
      const hold = holdAcquirer(ctx.t, 'authorise');
      const pay = ctx.t.app.inject({
        method: 'POST',
        url: `/checkout/${payId}/pay`,
        headers: form(cookie),
        payload: `csrf=${encodeURIComponent(csrf)}&method=5&number=4111111111111111&expiry=12%2F30&securityCode=123&holder=A+B`,
      });
      await hold.reached;
      await refusedReset('card attempt in flight');
      hold.release();
      assert.equal((await pay).statusCode, 303);
      assert.equal((await ctx.m.getPayment(payId)).json().status, 'Succeeded');
      // Nothing at the acquirer any more: the reset goes through and leaves no acquirer record behind.
      const res = await reset();
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(await paymentsOf(ctx.m), 0);
      const orphans = await db().query(`SELECT 1 FROM sim_authorisations WHERE split_part(reference, '.', 1) = $1`, [
        payId,
      ]);
      assert.equal(orphans.rows.length, 0);
    });
  });
}

describePostgres('sandbox reset racing requests on PostgreSQL (the reset holds its locks while they run)', () => {
  const ctx = useGateway('postgres');

  it('a payment created during a reset stays whole (no 23503), an operation on a deleted payment is a 404, never a 500', async () => {
    const m = await MerchantClient.create(ctx.t, EVERYTHING);
    const db = ctx.t.gw.services.db;
    const old = await createPaid(ctx.t, m, { callbackUrl: 'https://shop.example/callbacks/kb' });
    const { rows } = await db.query<{ event_id: string }>(
      'SELECT event_id FROM callback_deliveries WHERE client_id = $1',
      [m.credentials.clientId],
    );
    assert.equal(rows.length, 1, 'the paid payment has its callback delivery');
    // Hold that delivery's row: the reset, having locked the payments, waits for it.
    let release!: () => void;
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    const holder = db.tx(async (q) => {
      await q.query('SELECT 1 FROM callback_deliveries WHERE event_id = $1 FOR UPDATE', [rows[0]!.event_id]);
      holding();
      await new Promise<void>((r) => (release = r));
    });
    await held;
    const blocked = (text: string) => async () =>
      (await db.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [`%${text}%`]))
        .rows.length > 0;
    const reset = m.post('/sandbox/v1/reset', {});
    await waitUntil('the reset waits for the held delivery', blocked('FROM callback_deliveries WHERE client_id'));
    // Meanwhile: a new payment is created and paid (its events commit), and a refund of the old
    // payment waits for the reset's lock on it.
    const fresh = await createPaid(ctx.t, m);
    const refund = m.post(`/v1/gateway/payments/${old}/cancel`, { amount: 1 });
    await waitUntil('the refund waits for the payment the reset holds', blocked('FROM payments WHERE pay_id'));
    release();
    await holder;
    const done = await reset;
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json().deleted.payments, 1, done.body);
    const refused = await refund;
    assert.equal(refused.statusCode, 404, refused.body);
    assert.equal(refused.json().systemCode, 'cancel-payment.404.001');
    assert.equal((await m.getPayment(old)).statusCode, 404);
    const kept = await m.getPayment(fresh);
    assert.equal(kept.statusCode, 200, kept.body);
    assert.equal(kept.json().status, 'Succeeded');
  });
});
