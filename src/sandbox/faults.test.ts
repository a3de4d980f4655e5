// Faults on demand (POST /sandbox/v1/faults, merchant credentials) for every operation and outcome,
// their count, their isolation per merchant, one fault per operation when the reconciler asks again,
// consumption across two gateway processes (PostgreSQL), and the Karibche-Simulate-Fault header.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reconcile } from '../payments/reconciler.ts';
import { BACKENDS } from '../testing/databases.ts';
import {
  EVERYTHING,
  MerchantClient,
  TEST_ACQUIRER_MODULE,
  accessToken,
  basicPayment,
  createPaid,
  secondGateway,
  startTestGateway,
  useGateway,
} from '../testing/harness.ts';

for (const backend of BACKENDS) {
  describe(`sandbox faults on demand [${backend}]`, () => {
    const ctx = useGateway(backend, { KARIBCHE_OPERATION_WAIT_MS: '500' });
    const fresh = async (m = ctx.m) => {
      m.token = await accessToken(ctx.t.app, m.credentials);
      return m;
    };
    const fault = async (body: Record<string, unknown>, m = ctx.m) => (await fresh(m)).post('/sandbox/v1/faults', body);
    const get = async (id: string, m = ctx.m) => (await (await fresh(m)).getPayment(id)).json();
    const created = async (m = ctx.m, over: Record<string, unknown> = {}) => {
      const res = await (await fresh(m)).createPayment(basicPayment(over));
      assert.equal(res.statusCode, 200, res.body);
      return res.json().payId as string;
    };
    const simulate = (payId: string, body: Record<string, unknown> = { card: '4111111111111111' }) =>
      ctx.t.admin('POST', `/sandbox/v1/payments/${payId}/simulate`, body);
    const reconcileLater = async () => {
      const s = ctx.t.gw.services;
      await s.sharedClock.advance(s.config.reconcileAfterSeconds + 1);
      await reconcile(s);
    };
    const savedCard = async () => {
      const payId = await createPaid(ctx.t, ctx.m, { saveCard: true });
      return (await get(payId)).recurringCard.recId as string;
    };
    const execute = async (recId: string, headers: Record<string, string> = {}) =>
      (await fresh()).post(
        '/v1/gateway/payments/execution',
        { recId, money: { amount: '3.00', currency: 'GEL' } },
        headers,
      );
    const open = async () => (await fresh()).get('/sandbox/v1/faults');

    it('needs the merchant’s credentials and valid values; says what is waiting', async () => {
      assert.equal(
        (await ctx.t.admin('POST', '/sandbox/v1/faults', { operation: 'refund', outcome: 'decline' })).statusCode,
        401,
      );
      const bad = await fault({ operation: 'charge', outcome: 'explode', times: 0 });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.deepEqual(
        bad.json().invalidParams.map((p: { name: string }) => p.name),
        ['operation', 'outcome', 'times'],
      );
      assert.equal((await fault({ operation: 'refund', outcome: 'decline', times: 101 })).statusCode, 400);
      const made = await fault({ operation: 'capture', outcome: 'lost', times: 2 });
      assert.equal(made.statusCode, 201, made.body);
      assert.deepEqual(
        [made.json().operation, made.json().outcome, made.json().times, made.json().remaining],
        ['capture', 'lost', 2, 2],
      );
      assert.deepEqual(
        (await open()).json().faults.map((f: { id: number }) => f.id),
        [made.json().id],
      );
      const cleared = await (await fresh()).app.inject({
        method: 'DELETE',
        url: '/sandbox/v1/faults',
        headers: ctx.m.headers(),
      });
      assert.deepEqual(cleared.json(), { cleared: 1 });
      assert.deepEqual((await open()).json().faults, []);
    });

    it('authorise: decline (decline_general), lost (the reconciler finds it approved), error (check_with_acquirer); then the next attempt is normal', async () => {
      const expected: [string, string, string | null][] = [
        ['decline', 'Created', 'decline_general'],
        ['lost', 'Processing', null],
        ['error', 'Created', 'check_with_acquirer'],
      ];
      for (const [outcome, status, resultCode] of expected) {
        assert.equal((await fault({ operation: 'authorise', outcome })).statusCode, 201);
        const payId = await created();
        const p = (await simulate(payId)).json();
        assert.deepEqual([p.status, p.resultCode], [status, resultCode], outcome);
        if (outcome === 'lost') {
          await reconcileLater();
          assert.deepEqual([(await get(payId)).status, (await get(payId)).resultCode], ['Succeeded', 'approved']);
        } else {
          assert.equal((await simulate(payId)).json().status, 'Succeeded', 'one fault, one operation');
        }
      }
    });

    it('execution (saved-card charge): decline and error fail the payment, lost leaves it processing until the reconciler', async () => {
      const recId = await savedCard();
      const expected: [string, string, string | null][] = [
        ['decline', 'Failed', 'decline_general'],
        ['lost', 'Processing', null],
        ['error', 'Failed', 'check_with_acquirer'],
      ];
      for (const [outcome, status, resultCode] of expected) {
        await fault({ operation: 'execution', outcome });
        const res = await execute(recId);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual([res.json().status, res.json().resultCode], [status, resultCode], outcome);
        if (outcome === 'lost') {
          await reconcileLater();
          assert.equal((await get(res.json().payId)).status, 'Succeeded');
        }
      }
      assert.equal((await execute(recId)).json().status, 'Succeeded');
      // A customer's attempt is not an execution: an execution fault leaves the checkout alone.
      await fault({ operation: 'execution', outcome: 'decline' });
      const payId = await created();
      assert.equal((await simulate(payId)).json().status, 'Succeeded');
      await (await fresh()).app.inject({ method: 'DELETE', url: '/sandbox/v1/faults', headers: ctx.m.headers() });
    });

    for (const operation of ['capture', 'void', 'refund'] as const) {
      it(`${operation}: decline (400, nothing moves), lost (503, the reconciler finishes it), error (502, nothing moves, a retry with the key works)`, async () => {
        const payIdFor = async () => createPaid(ctx.t, ctx.m, operation === 'refund' ? {} : { preAuth: true });
        const call = async (payId: string, headers: Record<string, string> = {}) =>
          (await fresh()).post(
            `/v1/gateway/payments/${payId}/${operation === 'capture' ? 'completion' : 'cancel'}`,
            operation === 'capture' ? { amount: '10.00' } : {},
            headers,
          );
        const before = operation === 'refund' ? 'Succeeded' : 'WaitingConfirm';
        const done = operation === 'capture' ? 'Succeeded' : 'Returned';
        const processing = operation === 'capture' ? 'PaymentCompletionProcessing' : 'CancelPaymentProcessing';
        const systemCodeOp = operation === 'capture' ? 'complete-payment' : 'cancel-payment';

        await fault({ operation, outcome: 'decline' });
        let payId = await payIdFor();
        let res = await call(payId);
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(
          [res.json().systemCode, res.json().resultCode],
          [`${systemCodeOp}.400.055`, 'decline_general'],
        );
        assert.equal((await get(payId)).status, before);
        assert.equal((await call(payId)).statusCode, 200, 'the fault was used once');
        assert.equal((await get(payId)).status, done);

        await fault({ operation, outcome: 'lost' });
        payId = await payIdFor();
        res = await call(payId);
        assert.equal(res.statusCode, 503, res.body);
        assert.equal((await get(payId)).status, processing);
        await reconcileLater();
        const p = await get(payId);
        assert.equal(p.status, done);
        assert.equal(operation === 'capture' ? p.confirmedAmount : p.returnedAmount, 10);

        await fault({ operation, outcome: 'error' });
        payId = await payIdFor();
        res = await call(payId, { 'idempotency-key': `retry-${operation}-${payId}` });
        assert.equal(res.statusCode, 502, res.body);
        assert.equal(res.json().systemCode, `${systemCodeOp}.502.001`);
        assert.equal(res.headers['retry-after'], '5');
        assert.equal((await get(payId)).status, before);
        const retried = await call(payId, { 'idempotency-key': `retry-${operation}-${payId}` });
        assert.equal(retried.statusCode, 200, retried.body);
        assert.equal(retried.headers['idempotent-replayed'], undefined, 'the failed request did not keep the key');
        assert.equal((await get(payId)).status, done);
      });
    }

    it('times: n operations fail, the one after does not; a lost refund asked again by the reconciler takes no second fault', async () => {
      await fault({ operation: 'refund', outcome: 'decline', times: 2 });
      const ids = [await createPaid(ctx.t, ctx.m), await createPaid(ctx.t, ctx.m), await createPaid(ctx.t, ctx.m)];
      const answers = [];
      for (const id of ids)
        answers.push((await (await fresh()).post(`/v1/gateway/payments/${id}/cancel`, {})).statusCode);
      assert.deepEqual(answers, [400, 400, 200]);

      await fault({ operation: 'refund', outcome: 'lost', times: 2 });
      const lost = await createPaid(ctx.t, ctx.m);
      assert.equal((await (await fresh()).post(`/v1/gateway/payments/${lost}/cancel`, {})).statusCode, 503);
      await reconcileLater();
      assert.equal((await get(lost)).status, 'Returned');
      assert.deepEqual(
        (await open()).json().faults.map((f: { remaining: number }) => f.remaining),
        [1],
        'the reconciler’s repeated call took nothing',
      );
      await (await fresh()).app.inject({ method: 'DELETE', url: '/sandbox/v1/faults', headers: ctx.m.headers() });
    });

    it('is the merchant’s own: another merchant’s operations are not touched', async () => {
      const other = await MerchantClient.create(ctx.t, EVERYTHING);
      await fault({ operation: 'authorise', outcome: 'decline', times: 5 });
      const theirs = await created(other);
      assert.equal((await simulate(theirs)).json().status, 'Succeeded');
      const mine = await created();
      assert.equal((await simulate(mine)).json().resultCode, 'decline_general');
      await (await fresh()).app.inject({ method: 'DELETE', url: '/sandbox/v1/faults', headers: ctx.m.headers() });
    });

    it('an operation that meets no waiting fault takes none: it only reads (nothing of the check in the group commit)', async () => {
      const statements = async () =>
        Number(/^karibche_group_commit_statements_total (\d+)/m.exec((await ctx.t.app.inject('/metrics')).body)?.[1]);
      const payId = await created();
      // Another merchant's fault, and one of another operation, do not count as waiting.
      await fault(
        { operation: 'authorise', outcome: 'decline', times: 1 },
        await MerchantClient.create(ctx.t, EVERYTHING),
      );
      await fault({ operation: 'refund', outcome: 'decline', times: 1 });
      try {
        const before = await statements();
        assert.equal((await simulate(payId)).json().status, 'Succeeded');
        // The attempt begun, the sandbox acquirer's record, the outcome applied: no fault pick.
        assert.equal((await statements()) - before, 3);
      } finally {
        await (await fresh()).app.inject({ method: 'DELETE', url: '/sandbox/v1/faults', headers: ctx.m.headers() });
      }
    });

    it('payments paid at the same moment (their picks grouped in the group commit’s transactions) take exactly the faults there are', async () => {
      await fault({ operation: 'authorise', outcome: 'decline', times: 3 });
      const ids = await Promise.all(Array.from({ length: 8 }, () => created()));
      const commits = async () =>
        Number(/^karibche_group_commit_transactions_total (\d+)/m.exec((await ctx.t.app.inject('/metrics')).body)?.[1]);
      const before = await commits();
      const results = await Promise.all(ids.map((id) => simulate(id)));
      const codes = results.map((r) => r.json().resultCode as string);
      assert.equal(codes.filter((c) => c === 'decline_general').length, 3, codes.join(','));
      assert.equal(codes.filter((c) => c === 'approved').length, 5, codes.join(','));
      assert.deepEqual((await open()).json().faults, []);
      // The picks, attempts and outcomes of 8 payments went out in fewer transactions than statements.
      const grouped = (await commits()) - before;
      assert.ok(grouped < 8 * 3, `${grouped} transactions for 24 statements`);
    });

    if (backend === 'postgres') {
      it('two gateway processes refunding side by side take exactly the faults there are', async () => {
        const second = await secondGateway(ctx.t);
        try {
          await fault({ operation: 'refund', outcome: 'decline', times: 3 });
          const ids = await Promise.all(Array.from({ length: 8 }, () => createPaid(ctx.t, ctx.m)));
          const m = await fresh();
          const apps = [ctx.t.app, second.app];
          const codes = await Promise.all(
            ids.map((id, i) =>
              apps[i % 2]!.inject({
                method: 'POST',
                url: `/v1/gateway/payments/${id}/cancel`,
                payload: {},
                headers: m.headers({ 'content-type': 'application/json' }),
              }),
            ),
          );
          const count = (c: number) => codes.filter((r) => r.statusCode === c).length;
          assert.deepEqual([count(400), count(200)], [3, 5], codes.map((r) => r.statusCode).join(','));
          assert.deepEqual((await open()).json().faults, []);
        } finally {
          await second.close();
          await second.services.db.close();
        }
      });
    }
  });

  describe(`the Karibche-Simulate-Fault header [${backend}]`, () => {
    const ctx = useGateway(backend);

    it('answers 429 or 503 with Retry-After before anything runs; the Idempotency-Key stays free', async () => {
      const key = { 'idempotency-key': `simulated-${backend}` };
      for (const [value, status, code] of [
        ['429', 429, 'create-payment.429.001'],
        ['503', 503, 'create-payment.503.001'],
      ] as const) {
        const res = await ctx.m.createPayment(basicPayment(), { ...key, 'karibche-simulate-fault': value });
        assert.equal(res.statusCode, status, res.body);
        assert.equal(res.json().systemCode, code);
        assert.equal(res.headers['retry-after'], '1');
      }
      const { rows } = await ctx.t.gw.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payments');
      assert.equal(rows[0]!.n, 0, 'nothing was created');
      const first = await ctx.m.createPayment(basicPayment(), key);
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const replay = await ctx.m.createPayment(basicPayment(), key);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json().payId, first.json().payId);
      // Any merchant endpoint, a GET too.
      assert.equal(
        (await ctx.m.get(`/v1/gateway/payments/${first.json().payId}`, { 'karibche-simulate-fault': '503' }))
          .statusCode,
        503,
      );
    });

    it('refuses other values with a 400 that names the header', async () => {
      const res = await ctx.m.createPayment(basicPayment(), { 'karibche-simulate-fault': '500' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().invalidParams[0].name, 'Karibche-Simulate-Fault');
    });
  });
}

describe('the Karibche-Simulate-Fault header in production', () => {
  it('is ignored: the request is served', async () => {
    const t = await startTestGateway(BACKENDS[0]!, {
      KARIBCHE_MODE: 'production',
      KARIBCHE_ACQUIRER_MODULE: TEST_ACQUIRER_MODULE,
    });
    try {
      const m = await MerchantClient.create(t);
      const res = await m.createPayment(basicPayment(), { 'karibche-simulate-fault': '503' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await m.get('/sandbox/v1/faults')).statusCode, 404, 'and there is no faults endpoint');
    } finally {
      await t.close();
    }
  });
});
