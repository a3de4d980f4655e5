// Every row of the sandbox's test-card table (docs/sandbox.md) through the real interface: the
// merchant API creates the payment, the simulate endpoint pays it as the customer would, and the
// payment answers with the row's status and resultCode. Also the bank-login users, the late answers
// of QR and bank login (settled on the sandbox clock by the reconciler) and Ertguli points (6).
// The later-operation cards (0341, 5126, 0259) are followed further in src/acquirer/later-failures.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BANK_USERS } from '../acquirer/simulation/bank-users.ts';
import { DELAYED_OUTCOME_MINUTES, TEST_CARDS } from '../acquirer/simulation/test-cards.ts';
import { reconcile } from '../payments/reconciler.ts';
import { BACKENDS } from '../testing/databases.ts';
import { EVERYTHING, MerchantClient, accessToken, basicPayment, createPaid, useGateway } from '../testing/harness.ts';

/** What each card does at the checkout: the status after one attempt and its resultCode. */
const CARD_ROWS: Record<string, { status: string; resultCode: string | null; otp?: string; note: string }> = {
  '4111111111111111': { status: 'Succeeded', resultCode: 'approved', note: 'approved' },
  '5555555555554444': { status: 'Succeeded', resultCode: 'approved', note: 'approved' },
  '4000000000003220': {
    status: 'Succeeded',
    resultCode: 'approved',
    otp: '1234',
    note: '3-D Secure challenge, 1234 approves',
  },
  '4000000000000002': { status: 'Created', resultCode: 'decline_general', note: 'declined' },
  '4000000000009995': { status: 'Created', resultCode: 'decline_not_sufficient_funds', note: 'declined' },
  '4000000000000069': { status: 'Created', resultCode: 'decline_expired_card', note: 'declined' },
  '4100000000000019': { status: 'Created', resultCode: 'decline_suspected_fraud', note: 'declined' },
  '4000000000000127': { status: 'Created', resultCode: 'decline_restricted_card', note: 'declined' },
  '4000000000000101': { status: 'Created', resultCode: 'decline_card_not_effective', note: 'declined' },
  '4000000000000515': { status: 'Created', resultCode: 'decline_invalid_card_number', note: 'declined' },
  '4000000000000119': { status: 'Created', resultCode: 'check_with_acquirer', note: 'declined' },
  '4000000000000770': { status: 'Processing', resultCode: null, note: 'no answer until the reconciler asks' },
  '4000000000000838': { status: 'Succeeded', resultCode: 'approved', note: 'approved (7-day block)' },
  '4000000000000341': {
    status: 'Succeeded',
    resultCode: 'approved',
    note: 'approved; refunds and voids declined later',
  },
  '4000000000005126': { status: 'Succeeded', resultCode: 'approved', note: 'approved; refund answers lost later' },
  '4000000000000259': { status: 'Succeeded', resultCode: 'approved', note: 'approved; completion declined later' },
  '4000000000004871': {
    status: 'Succeeded',
    resultCode: 'approved',
    note: 'approved; saved-card charges declined later',
  },
  '4000000000003105': { status: 'Created', resultCode: 'decline_general', note: '3-D Secure frictionless decline' },
  '4000000000003113': { status: 'Processing', resultCode: null, note: '3-D Secure challenge, abandoned' },
  '4000000000003121': {
    status: 'Succeeded',
    resultCode: 'approved',
    note: '3-D Secure attempted: approved without a challenge',
  },
  '4000000000003139': { status: 'Created', resultCode: 'check_with_acquirer', note: '3-D Secure unavailable' },
  '4000000000003147': {
    status: 'Created',
    resultCode: 'decline_suspected_fraud',
    note: '3-D Secure rejected by the issuer',
  },
};

for (const backend of BACKENDS) {
  describe(`sandbox test cards and simulated flows [${backend}]`, () => {
    const ctx = useGateway(backend);
    const get = async (id: string) => {
      ctx.m.token = await accessToken(ctx.t.app, ctx.m.credentials);
      return (await ctx.m.getPayment(id)).json();
    };
    const create = async (m: MerchantClient, over: Record<string, unknown> = {}) => {
      m.token = await accessToken(ctx.t.app, m.credentials);
      const res = await m.createPayment(basicPayment(over));
      assert.equal(res.statusCode, 200, res.body);
      return res.json().payId as string;
    };
    const simulate = (payId: string, body: Record<string, unknown>) =>
      ctx.t.admin('POST', `/sandbox/v1/payments/${payId}/simulate`, body);
    /** Moves the sandbox clock and lets the reconciler ask the acquirer about what is still open. */
    const later = async (seconds: number) => {
      const s = ctx.t.gw.services;
      await s.sharedClock.advance(seconds);
      await reconcile(s);
    };

    it('the table covers every test card of the simulator', () => {
      assert.deepEqual(Object.keys(CARD_ROWS).sort(), Object.keys(TEST_CARDS).sort());
    });

    for (const [card, row] of Object.entries(CARD_ROWS)) {
      it(`${card.replace(/(\d{4})(?=\d)/g, '$1 ')}: ${row.note} → ${row.status} ${row.resultCode ?? ''}`, async () => {
        const payId = await create(ctx.m);
        const res = await simulate(payId, { card, ...(row.otp ? { otp: row.otp } : {}) });
        assert.equal(res.statusCode, 200, res.body);
        const p = await get(payId);
        assert.deepEqual([p.status, p.resultCode], [row.status, row.resultCode]);
        if (row.status === 'Succeeded') assert.match(p.rrn, /^\d{12}$/);
      });
    }

    it('any other Luhn-valid number is approved', async () => {
      const payId = await create(ctx.m);
      assert.equal((await simulate(payId, { card: '4242424242424242' })).json().status, 'Succeeded');
    });

    it('4000 0000 0000 3220 with a wrong code: declined as a failed authentication (Karibche default profile)', async () => {
      const payId = await create(ctx.m);
      const p = (await simulate(payId, { card: '4000000000003220', otp: '0000' })).json();
      assert.deepEqual([p.status, p.resultCode], ['Created', 'decline_authentication_failed']);
    });

    it('3-D Secure abandoned (3113): no code passes, and the reconciler declines the attempt (decline_general)', async () => {
      const answered = await create(ctx.m);
      const p = (await simulate(answered, { card: '4000000000003113', otp: '1234' })).json();
      assert.deepEqual(
        [p.status, p.resultCode],
        ['Created', 'decline_general'],
        'even the right code finds the ACS session gone',
      );
      const left = await create(ctx.m);
      assert.equal((await simulate(left, { card: '4000000000003113' })).json().status, 'Processing');
      await later(ctx.t.gw.services.config.reconcileAfterSeconds + 1);
      const after = await get(left);
      assert.deepEqual([after.status, after.resultCode], ['Created', 'decline_general']);
    });

    it('no answer (0770): the reconciler settles it as approved on the sandbox clock', async () => {
      const payId = await create(ctx.m);
      await simulate(payId, { card: '4000000000000770' });
      await later(ctx.t.gw.services.config.reconcileAfterSeconds + 1);
      assert.equal((await get(payId)).status, 'Succeeded');
    });

    it('0838 blocks a pre-authorisation for 7 days, other cards for 30', async () => {
      for (const [card, days] of [
        ['4000000000000838', 7],
        ['4111111111111111', 30],
      ] as const) {
        const payId = await createPaid(ctx.t, ctx.m, { preAuth: true }, card);
        const p = await get(payId);
        const held = (Date.parse(p.preAuthExpiresAt) - Date.parse(p.updatedAt)) / 86_400_000;
        assert.equal(Math.round(held), days, card);
      }
    });

    it('4000 0000 0000 4871: approved and saved; every charge of the saved card is declined (decline_not_sufficient_funds)', async () => {
      const saver = await createPaid(ctx.t, ctx.m, { saveCard: true }, '4000000000004871');
      const recId = (await get(saver)).recurringCard.recId as string;
      for (const amount of ['1.00', '2.00']) {
        const res = await ctx.m.post('/v1/gateway/payments/execution', { recId, money: { amount, currency: 'GEL' } });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(
          [res.json().status, res.json().resultCode, res.json().paymentMethod],
          ['Failed', 'decline_not_sufficient_funds', 11],
        );
      }
      // Another saved card charges fine.
      const good = await createPaid(ctx.t, ctx.m, { saveCard: true }, '4111111111111111');
      const res = await ctx.m.post('/v1/gateway/payments/execution', {
        recId: (await get(good)).recurringCard.recId,
        money: { amount: '1.00', currency: 'GEL' },
      });
      assert.equal(res.json().status, 'Succeeded');
    });

    it('internet-bank users: demo pays, empty and blocked are declined; a wrong password is no attempt', async () => {
      const expected: Record<string, [string, string | null]> = {
        demo: ['Succeeded', 'approved'],
        empty: ['Created', 'decline_not_sufficient_funds'],
        blocked: ['Created', 'decline_restricted_card'],
        'slow-approve': ['Processing', null],
        'slow-decline': ['Processing', null],
      };
      assert.deepEqual(Object.keys(expected).sort(), Object.keys(BANK_USERS).sort());
      for (const [username, want] of Object.entries(expected)) {
        const payId = await create(ctx.m);
        const p = (await simulate(payId, { method: 7, username, password: 'demo' })).json();
        assert.deepEqual([p.status, p.resultCode], want, username);
      }
      const payId = await create(ctx.m);
      const wrong = await simulate(payId, { method: 7, username: 'demo', password: 'nope' });
      assert.equal(wrong.statusCode, 400);
      assert.equal(wrong.json().systemCode, 'sandbox.400.032');
      assert.equal((await get(payId)).status, 'Created');
    });

    it(`late answers: slow bank users and QR "later" stay Processing and settle ${DELAYED_OUTCOME_MINUTES} minutes of sandbox time later`, async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ method: 7, username: 'slow-approve', password: 'demo' }, 'Succeeded', 'approved'],
        [{ method: 7, username: 'slow-decline', password: 'demo' }, 'Created', 'decline_not_sufficient_funds'],
        [{ method: 4, outcome: 'approve', later: true }, 'Succeeded', 'approved'],
        [{ method: 4, outcome: 'decline', later: true }, 'Created', 'decline_general'],
        [{ method: 7, outcome: 'approve', later: true }, 'Succeeded', 'approved'],
      ];
      const ids: string[] = [];
      for (const [body] of cases) {
        const payId = await create(ctx.m);
        const res = await simulate(payId, body);
        assert.equal(res.json().status, 'Processing', res.body);
        ids.push(payId);
      }
      // A minute later the reconciler asks, and the bank has not decided yet.
      await later(ctx.t.gw.services.config.reconcileAfterSeconds + 1);
      for (const id of ids) assert.equal((await get(id)).status, 'Processing');
      await later(DELAYED_OUTCOME_MINUTES * 60);
      for (const [i, [body, status, resultCode]] of cases.entries()) {
        const p = await get(ids[i]!);
        assert.deepEqual([p.status, p.resultCode], [status, resultCode], JSON.stringify(body));
      }
      // Only QR and bank login answer late.
      const wallet = await create(ctx.m);
      const refused = await simulate(wallet, { method: 9, outcome: 'approve', later: true });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().invalidParams[0].name, 'later');
    });

    it('Ertguli points (6): approve pays, decline is too few points; GEL only, purchase only, no split, no saved card, off by default', async () => {
      const points = await MerchantClient.create(ctx.t, { ...EVERYTHING, methods: [5, 6] });
      const payId = await create(points, { methods: [6] });
      let p = (await simulate(payId, { method: 6, outcome: 'decline' })).json();
      assert.deepEqual([p.status, p.resultCode, p.paymentMethod], ['Created', 'decline_not_sufficient_funds', 6]);
      p = (await simulate(payId, { method: 6, outcome: 'approve' })).json();
      assert.deepEqual([p.status, p.resultCode, p.paymentMethod, p.confirmedAmount], ['Succeeded', 'approved', 6, 10]);
      // Offered by default to a merchant that enabled it, in GEL, for a plain purchase.
      points.token = await accessToken(ctx.t.app, points.credentials);
      const offered = async (over: Record<string, unknown>) => {
        const id = await create(points, over);
        const row = await ctx.t.gw.services.db.query<{ methods: number[] }>(
          'SELECT methods FROM payments WHERE pay_id = $1',
          [id],
        );
        return row.rows[0]!.methods;
      };
      assert.deepEqual(await offered({}), [5, 6]);
      assert.deepEqual(await offered({ amount: { currency: 'USD', total: 10 } }), [5]);
      assert.deepEqual(await offered({ preAuth: true }), [5]);
      for (const [over, reason] of [
        [{ amount: { currency: 'USD', total: 10 } }, /GEL only/],
        [{ preAuth: true }, /purchase only/],
        [{ saveCard: true }, /saveCard/],
        [{ extra: 'GE60KB0000000101904917', extra2: '1.00' }, /split/],
      ] as const) {
        const res = await points.createPayment(basicPayment({ ...over, methods: [6] }));
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().systemCode, 'create-payment.400.013');
        assert.match(res.json().invalidParams.find((x: { name: string }) => x.name === 'methods[0]').reason, reason);
      }
      // A merchant that did not enable it (the default) cannot ask for it.
      const plain = await MerchantClient.create(ctx.t, { callbackUrlPrefixes: [] });
      const refused = await plain.createPayment(basicPayment({ methods: [6] }));
      assert.equal(refused.json().systemCode, 'create-payment.400.012');
      const admin = await ctx.t.admin('GET', `/admin/v1/merchants/${plain.credentials.clientId}`);
      assert.deepEqual(admin.json().methods, [5]);
    });
  });
}
