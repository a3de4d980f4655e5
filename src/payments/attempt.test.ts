import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TEST_CARDS } from '../acquirer/simulation/test-cards.ts';
import { BACKENDS } from '../testing/databases.ts';
import { noCardDataIn } from '../testing/card-data.ts';
import { basicPayment, useGateway } from '../testing/harness.ts';
import { reconcile } from './reconciler.ts';
import { beginAttempt } from './attempt.ts';

for (const backend of BACKENDS) {
  describe(`paying: transitions, attempts, reconciler, saved cards [${backend}]`, () => {
    const ctx = useGateway(backend);
    const create = async (over: Record<string, unknown> = {}) => {
      const res = await ctx.m.createPayment(basicPayment(over));
      assert.equal(res.statusCode, 200, res.body);
      return res.json().payId as string;
    };
    const simulate = (payId: string, body: Record<string, unknown>) =>
      ctx.t.admin('POST', `/sandbox/v1/payments/${payId}/simulate`, body);
    const events = async (payId: string) =>
      (
        await ctx.t.gw.services.db.query<{ seq: number; status: string; final: boolean }>(
          'SELECT seq, status, final FROM payment_events WHERE pay_id = $1 ORDER BY seq',
          [payId],
        )
      ).rows;
    const get = async (payId: string) => (await ctx.m.getPayment(payId)).json();

    it('approves a card: Succeeded with transaction data, Processing committed first', async () => {
      const id = await create();
      const res = await simulate(id, { method: 5, card: '4111 1111 1111 1111' });
      assert.equal(res.statusCode, 200, res.body);
      const p = await get(id);
      assert.equal(p.status, 'Succeeded');
      assert.match(p.transactionId, /^sim_[0-9a-f]{16}$/);
      assert.match(p.rrn, /^\d{12}$/);
      assert.equal(p.paymentMethod, 5);
      assert.equal(p.resultCode, 'approved');
      assert.equal(p.paymentCardNumber, '411111******1111');
      assert.deepEqual(await events(id), [
        { seq: 1, status: 'Processing', final: false },
        { seq: 2, status: 'Succeeded', final: true },
      ]);
    });

    it('pre-authorises into WaitingConfirm with the issuer’s block window (30 days, 7 for 0838)', async () => {
      for (const [card, days] of [
        ['4111111111111111', 30],
        ['4000000000000838', 7],
      ] as const) {
        const id = await create({ preAuth: true });
        await simulate(id, { card });
        const p = await get(id);
        assert.equal(p.status, 'WaitingConfirm');
        assert.equal(new Date(p.preAuthExpiresAt).getTime() - ctx.t.clock.nowMs() > (days - 1) * 86_400_000, true);
        assert.equal(new Date(p.preAuthExpiresAt).getTime() - ctx.t.clock.nowMs() <= days * 86_400_000, true);
        assert.deepEqual((await events(id)).at(-1), { seq: 2, status: 'WaitingConfirm', final: true });
      }
    });

    it('gives every test card its result code; a decline keeps the payment open until the third', async () => {
      const declines = Object.entries(TEST_CARDS).filter(
        ([, b]) => b.startsWith('decline') || b === 'check_with_acquirer',
      );
      for (const [card, code] of declines) {
        const id = await create();
        const r = (await simulate(id, { card })).json();
        assert.equal(r.status, 'Created', card);
        assert.equal(r.resultCode, code, card);
      }
      const id = await create();
      for (let i = 1; i <= 2; i++)
        assert.equal((await simulate(id, { card: '4000000000000002' })).json().status, 'Created');
      const last = (await simulate(id, { card: '4000000000009995' })).json();
      assert.equal(last.status, 'Failed');
      assert.equal(last.resultCode, 'decline_not_sufficient_funds');
      assert.deepEqual(
        (await events(id)).map((e) => `${e.status}:${e.final}`),
        ['Processing:false', 'Created:false', 'Processing:false', 'Created:false', 'Processing:false', 'Failed:true'],
      );
      const again = await simulate(id, { card: '4111111111111111' });
      assert.equal(again.statusCode, 400);
      assert.equal(again.json().systemCode, 'sandbox.400.030');
    });

    it('hands the split allocation to the acquirer, which records it with the authorisation', async () => {
      const id = await create({ extra: 'GE60KB0000000101904917', extra2: '2.50' });
      assert.equal((await simulate(id, { card: '4111111111111111' })).json().status, 'Succeeded');
      const { rows } = await ctx.t.gw.services.db.query<{
        split_iban: string;
        split_amount: number;
        amount: number;
        status: string;
      }>(`SELECT split_iban, split_amount, amount, status FROM sim_authorisations WHERE reference = $1`, [`${id}.1`]);
      assert.deepEqual(rows[0], {
        split_iban: 'GE60KB0000000101904917',
        split_amount: 250,
        amount: 1000,
        status: 'approved',
      });
      const p = await get(id);
      assert.deepEqual(p.split, { iban: 'GE60KB0000000101904917', amount: 2.5, returnedAmount: 0 });
    });

    it('lets a customer retry after a decline and succeed', async () => {
      const id = await create();
      assert.equal((await simulate(id, { card: '4000000000000002' })).json().status, 'Created');
      const ok = (await simulate(id, { card: '5555555555554444' })).json();
      assert.equal(ok.status, 'Succeeded');
      assert.equal(ok.paymentCardNumber, '555555******4444');
    });

    it('runs 3-D Secure: a wrong code declines the attempt, 1234 approves', async () => {
      const id = await create();
      const challenged = (await simulate(id, { card: '4000000000003220' })).json();
      assert.equal(challenged.status, 'Processing');
      const wrong = (await simulate(id, { otp: '9999' })).json();
      assert.equal(wrong.status, 'Created');
      assert.equal(wrong.resultCode, 'decline_authentication_failed');
      const ok = (await simulate(id, { card: '4000000000003220', otp: '1234' })).json();
      assert.equal(ok.status, 'Succeeded');
      // The code as the customer types it on the page (spaces around it) passes simulate too: one rule.
      const spaced = await create();
      await simulate(spaced, { card: '4000000000003220' });
      assert.equal((await simulate(spaced, { otp: ' 1234 ' })).json().status, 'Succeeded');
    });

    it('settles a payment whose acquirer never answered once the reconciler runs', async () => {
      const id = await create();
      assert.equal((await simulate(id, { card: '4000000000000770' })).json().status, 'Processing');
      const s = ctx.t.gw.services;
      await reconcile(s);
      assert.equal((await get(id)).status, 'Processing', 'not before KARIBCHE_RECONCILE_AFTER_SECONDS');
      await s.sharedClock.advance(61);
      assert.ok((await reconcile(s)) >= 1);
      const p = await get(id);
      assert.equal(p.status, 'Succeeded');
      assert.match(p.rrn, /^\d{12}$/);
      ctx.m.token = await (await import('../testing/harness.ts')).accessToken(ctx.t.app, ctx.m.credentials);
    });

    it('declines an abandoned 3-D Secure challenge after 10 minutes', async () => {
      const id = await create({ expirationMinutes: 30 });
      await simulate(id, { card: '4000000000003220' });
      const s = ctx.t.gw.services;
      await s.sharedClock.advance(61);
      await reconcile(s);
      assert.equal((await get(id)).status, 'Processing', 'challenge still open');
      await s.sharedClock.advance(10 * 60);
      await reconcile(s);
      const p = await get(id);
      assert.equal(p.status, 'Created');
      assert.equal(p.resultCode, 'decline_authentication_timeout');
    });

    it('settles an attempt whose call never reached the acquirer (crash after Processing) as not processed', async () => {
      const id = await create();
      const s = ctx.t.gw.services;
      // What a gateway that died right after committing Processing leaves behind.
      await beginAttempt(s, s.db, id, 5, s.clock.now());
      await s.sharedClock.advance(61);
      await reconcile(s);
      const p = await get(id);
      assert.equal(p.status, 'Created');
      assert.equal(p.resultCode, 'not_processed');
      assert.equal((await simulate(id, { card: '4111111111111111' })).json().status, 'Succeeded');
    });

    it('pays by QR, bank login, wallets and installment, approve and decline', async () => {
      const products = { methods: [8], installmentProducts: [{ name: 'TV', price: 10, quantity: 1 }] };
      for (const [method, over] of [
        [4, {}],
        [7, {}],
        [9, {}],
        [14, {}],
        [8, products],
      ] as const) {
        const ok = await create(over);
        const r = (await simulate(ok, { method, outcome: 'approve' })).json();
        assert.equal(r.status, 'Succeeded', `method ${method}`);
        assert.equal(r.paymentMethod, method);
        const no = await create(over);
        assert.equal((await simulate(no, { method, outcome: 'decline' })).json().resultCode, 'decline_general');
      }
      const bank = await create();
      const login = await simulate(bank, { method: 7, username: 'demo', password: 'wrong' });
      assert.equal(login.json().systemCode, 'sandbox.400.032');
      assert.equal((await get(bank)).status, 'Created');
      assert.equal(
        (
          await ctx.t.gw.services.db.query<{ attempts: number }>('SELECT attempts FROM payments WHERE pay_id = $1', [
            bank,
          ])
        ).rows[0]!.attempts,
        0,
      );
      assert.equal(
        (await simulate(bank, { method: 7, username: 'empty', password: 'demo' })).json().resultCode,
        'decline_not_sufficient_funds',
      );
      assert.equal(
        (await simulate(bank, { method: 7, username: 'demo', password: 'demo' })).json().status,
        'Succeeded',
      );
    });

    it('refuses methods the payment does not offer, bad cards, expired and unknown payments', async () => {
      const id = await create({ methods: [5] });
      assert.equal((await simulate(id, { method: 4 })).json().systemCode, 'sandbox.400.031');
      const bad = await simulate(id, { card: '4111111111111112', expiry: '01/20', cvc: '1' });
      assert.equal(bad.json().systemCode, 'sandbox.400.001');
      assert.deepEqual(
        bad
          .json()
          .invalidParams.map((p: { name: string }) => p.name)
          .sort(),
        ['card', 'cvc', 'expiry'],
      );
      const short = await create({ expirationMinutes: 1 });
      await ctx.t.gw.services.sharedClock.advance(60);
      const late = await simulate(short, { card: '4111111111111111' });
      assert.equal(late.json().systemCode, 'sandbox.400.030');
      assert.equal((await get(short)).status, 'Expired');
      assert.equal((await simulate('0'.repeat(32), { card: '4111111111111111' })).json().systemCode, 'sandbox.404.001');
    });

    it('lets exactly one of two simultaneous attempts run', async () => {
      const id = await create();
      const [a, b] = await Promise.all([
        simulate(id, { card: '4111111111111111' }),
        simulate(id, { card: '4111111111111111' }),
      ]);
      const codes = [a.statusCode, b.statusCode].sort();
      assert.deepEqual(codes, [200, 400]);
      assert.equal((await events(id)).filter((e) => e.status === 'Succeeded').length, 1);
    });

    it('saves the card on approval: active at once, capped at the card expiry; pending with preAuth', async () => {
      const id = await create({ saveCard: true, saveCardToDate: '1299' });
      const p = (await simulate(id, { card: '4111111111111111', expiry: '08/31' })).json();
      assert.equal(p.status, 'Succeeded');
      const g = await get(id);
      assert.ok(g.recurringCard);
      assert.deepEqual(g.recurringCard, {
        recId: g.recurringCard.recId,
        cardMask: '411111******1111',
        expiryDate: '0831',
      });
      const capped = await create({ saveCard: true, saveCardToDate: '0130' });
      await simulate(capped, { card: '4111111111111111', expiry: '08/31' });
      assert.equal((await get(capped)).recurringCard.expiryDate, '0130');
      const pre = await create({ saveCard: true, preAuth: true });
      await simulate(pre, { card: '4111111111111111' });
      assert.equal((await get(pre)).recurringCard, null, 'pending until completion');
      const { rows } = await ctx.t.gw.services.db.query<{ status: string }>(
        'SELECT s.status FROM saved_cards s JOIN payments p ON p.rec_id = s.rec_id WHERE p.pay_id = $1',
        [pre],
      );
      assert.equal(rows[0]!.status, 'pending');
      const declined = await create({ saveCard: true });
      await simulate(declined, { card: '4000000000000002' });
      assert.equal((await get(declined)).recurringCard, null);
    });

    it('saves the card of an approval after 3-D Secure and of one the reconciler settles, like a frictionless one', async () => {
      const challenged = await create({ saveCard: true });
      await simulate(challenged, { card: '4000000000003220' });
      assert.equal((await simulate(challenged, { otp: '1234' })).json().status, 'Succeeded');
      const saved = (await get(challenged)).recurringCard;
      assert.ok(saved, 'the card approved after 3-D Secure was saved');
      assert.equal(saved.cardMask, '400000******3220');
      const charged = await ctx.m.post('/v1/gateway/payments/execution', {
        recId: saved.recId,
        money: { amount: '1.00', currency: 'GEL' },
      });
      assert.deepEqual([charged.statusCode, charged.json().status], [200, 'Succeeded'], charged.body);
      const lost = await create({ saveCard: true });
      assert.equal((await simulate(lost, { card: '4000000000000770' })).json().status, 'Processing');
      const s = ctx.t.gw.services;
      await s.sharedClock.advance(s.config.reconcileAfterSeconds + 1);
      await reconcile(s);
      const settled = await get(lost);
      assert.equal(settled.status, 'Succeeded');
      assert.ok(settled.recurringCard, 'the card of an approval the reconciler heard was saved');
      // A challenge failed: nothing saved.
      const failed = await create({ saveCard: true });
      await simulate(failed, { card: '4000000000003220', otp: '0000' });
      assert.equal((await get(failed)).recurringCard, null);
    });

    it('saves the card of a Google Pay approval like a card payment’s, and charges it later', async () => {
      const id = await create({ saveCard: true, methods: [14] });
      const p = (await simulate(id, { method: 14, outcome: 'approve' })).json();
      assert.deepEqual([p.status, p.paymentMethod, p.paymentCardNumber], ['Succeeded', 14, '424242******4242']);
      const g = await get(id);
      assert.ok(g.recurringCard, 'the wallet card was saved');
      assert.equal(g.recurringCard.cardMask, '424242******4242');
      const charged = await ctx.m.post('/v1/gateway/payments/execution', {
        recId: g.recurringCard.recId,
        money: { amount: '2.50', currency: 'GEL' },
      });
      assert.equal(charged.statusCode, 200, charged.body);
      assert.deepEqual(
        [charged.json().status, charged.json().paymentMethod, charged.json().confirmedAmount],
        ['Succeeded', 11, 2.5],
      );
      // Apple Pay yields a card for the payment (its mask) but cannot save it: refused with saveCard.
      const apple = await ctx.m.createPayment(basicPayment({ saveCard: true, methods: [9] }));
      assert.equal(apple.json().systemCode, 'create-payment.400.013');
    });

    it('keeps no full card number or security code anywhere in the database', async () => {
      await noCardDataIn(ctx.t);
    });
  });
}
