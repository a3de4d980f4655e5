import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import {
  EVERYTHING,
  MerchantClient,
  SPLIT_IBAN,
  accessToken,
  basicPayment,
  createPaid,
  useGateway,
} from '../testing/harness.ts';
import { AcquirerNoAnswer, type Acquirer } from '../acquirer/acquirer.ts';
import type { Queryable } from '../store/db.ts';

for (const backend of BACKENDS) {
  describe(`cancel, completion, saved cards [${backend}]`, () => {
    // Tbilisi is UTC+4: the tests move the clock to a fixed time of day before each business-day case.
    const ctx = useGateway(backend);
    const s = () => ctx.t.gw.services;
    const refresh = async () => {
      ctx.m.token = await accessToken(ctx.t.app, ctx.m.credentials);
    };
    const paid = (over: Record<string, unknown> = {}, card?: string) => createPaid(ctx.t, ctx.m, over, card);
    const cancel = (id: string, body: Record<string, unknown> = {}) =>
      ctx.m.post(`/v1/gateway/payments/${id}/cancel`, body);
    const complete = (id: string, amount: unknown) => ctx.m.post(`/v1/gateway/payments/${id}/completion`, { amount });
    const get = async (id: string) => (await ctx.m.getPayment(id)).json();
    /** Moves the gateway clock to the next 12:00 in Tbilisi (08:00 UTC), then `plusSeconds`. */
    const toNoon = async (plusSeconds = 0) => {
      const now = s().clock.nowMs();
      const day = 86_400_000;
      let target = Math.floor(now / day) * day + 8 * 3_600_000;
      if (target <= now) target += day;
      await s().sharedClock.advance(Math.ceil((target - now) / 1000) + plusSeconds);
      await refresh();
    };
    /** Runs `run` while the acquirer answers refunds with `refund`. */
    const withRefund = async (refund: Acquirer['refund'], run: () => Promise<unknown>) => {
      const acq = s().acquirer;
      const original = acq.refund.bind(acq);
      acq.refund = refund;
      try {
        await run();
      } finally {
        acq.refund = original;
      }
    };
    const refundCount = async (id: string) =>
      (
        await s().db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM payment_operations WHERE pay_id = $1 AND kind = 'refund'`,
          [id],
        )
      ).rows[0]!.n;
    const problem = (res: { statusCode: number; json(): any }, status: number, code: string) => {
      assert.equal(res.statusCode, status, JSON.stringify(res.json()));
      assert.equal(res.json().systemCode, code);
      if (status === 400)
        assert.equal(res.json().resultCode, Number(code.slice(-3)) >= 50 ? 'decline_general' : 'invalid_request');
      return res.json();
    };

    it('refunds everything with no amount: Returned, with the callback event', async () => {
      await toNoon();
      const id = await paid({ amount: { currency: 'GEL', total: '25.40' } });
      const res = await cancel(id);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        status: 'Returned',
        amount: 25.4,
        returnedAmount: 25.4,
        httpStatusCode: 200,
        developerMessage: null,
        userMessage: null,
      });
      const p = await get(id);
      assert.equal(p.status, 'Returned');
      assert.equal(p.returnedAmount, 25.4);
      const { rows } = await s().db.query<{ status: string; final: boolean }>(
        'SELECT status, final FROM payment_events WHERE pay_id = $1 ORDER BY seq',
        [id],
      );
      assert.deepEqual(
        rows.map((r) => `${r.status}:${r.final}`),
        ['Processing:false', 'Succeeded:true', 'CancelPaymentProcessing:false', 'Returned:true'],
      );
      problem(await cancel(id), 400, 'cancel-payment.400.050');
    });

    it('allows one partial cancel on the transaction day, refuses the next, and repeats partial refunds on later days', async () => {
      await toNoon();
      const id = await paid({ amount: { currency: 'GEL', total: 10 } });
      const first = await cancel(id, { amount: '2.50' });
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(
        [first.json().status, first.json().amount, first.json().returnedAmount],
        ['PartialReturned', 2.5, 2.5],
      );
      const second = problem(await cancel(id, { amount: 1 }), 400, 'cancel-payment.400.053');
      assert.match(second.detail, /apply to the bank/);
      problem(await cancel(id), 400, 'cancel-payment.400.053');
      // 23:59 the same day (Tbilisi): still refused. (toNoon lands within a second or two after
      // noon and real time keeps moving, hence the one-minute margin.)
      await s().sharedClock.advance(12 * 3600 - 60);
      await refresh();
      problem(await cancel(id, { amount: 1 }), 400, 'cancel-payment.400.053');
      // Past midnight it is the next business day.
      await s().sharedClock.advance(60);
      await refresh();
      for (const amount of [1, '1.50', 2]) assert.equal((await cancel(id, { amount })).statusCode, 200);
      problem(await cancel(id, { amount: 3.01 }), 400, 'cancel-payment.400.051');
      const last = await cancel(id, { amount: 3 });
      assert.deepEqual([last.json().status, last.json().returnedAmount], ['Returned', 10]);
      problem(await cancel(id, { amount: 0.01 }), 400, 'cancel-payment.400.050');
    });

    it('allows a full cancel on the transaction day without an earlier partial', async () => {
      await toNoon();
      const id = await paid();
      assert.equal((await cancel(id, { amount: 10 })).json().status, 'Returned');
    });

    it('rejects bad amounts and statuses with their codes', async () => {
      await toNoon();
      const id = await paid();
      problem(await cancel(id, { amount: 0 }), 400, 'cancel-payment.400.051');
      problem(await cancel(id, { amount: '10.01' }), 400, 'cancel-payment.400.051');
      problem(await cancel(id, { amount: '1.001' }), 400, 'cancel-payment.400.001');
      problem(await cancel(id, { amount: -1 }), 400, 'cancel-payment.400.001');
      const open = (await ctx.m.createPayment(basicPayment())).json().payId;
      problem(await cancel(open), 400, 'cancel-payment.400.050');
      problem(await complete(id, 1), 400, 'complete-payment.400.050');
      problem(await cancel('0'.repeat(32)), 404, 'cancel-payment.404.001');
      const other = await MerchantClient.create(ctx.t, EVERYTHING);
      problem(await other.post(`/v1/gateway/payments/${id}/cancel`, {}), 404, 'cancel-payment.404.001');
      problem(
        await other.post(`/v1/gateway/payments/${id}/completion`, { amount: 1 }),
        404,
        'complete-payment.404.001',
      );
      assert.equal((await get(id)).status, 'Succeeded', 'nothing changed');
    });

    it('voids a pre-authorisation in full; a partial cancel says to complete with less', async () => {
      const id = await paid({ preAuth: true });
      const partial = problem(await cancel(id, { amount: 4 }), 400, 'cancel-payment.400.052');
      assert.match(partial.detail, /complete it with the smaller amount/);
      const v = await cancel(id);
      assert.deepEqual([v.json().status, v.json().returnedAmount], ['Returned', 10]);
      assert.equal((await get(id)).confirmedAmount, 0); // nothing was ever captured
    });

    it('completes with less: Succeeded, confirmedAmount, the rest released; refunds then count the confirmed amount', async () => {
      await toNoon();
      const id = await paid({ preAuth: true, amount: { currency: 'GEL', total: 50 } });
      problem(await complete(id, '50.01'), 400, 'complete-payment.400.051');
      problem(await complete(id, 0), 400, 'complete-payment.400.051');
      const res = await complete(id, '30.00');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        status: 'Succeeded',
        amount: 30,
        confirmedAmount: 30,
        httpStatusCode: 200,
        developerMessage: null,
        userMessage: null,
      });
      const p = await get(id);
      assert.equal(p.confirmedAmount, 30);
      assert.equal(p.preAuthExpiresAt, null);
      problem(await complete(id, 10), 400, 'complete-payment.400.050');
      problem(await cancel(id, { amount: '30.01' }), 400, 'cancel-payment.400.051');
      assert.deepEqual([(await cancel(id)).json().status, (await get(id)).returnedAmount], ['Returned', 30]);
    });

    it('refuses completion and void after the block window, and releases the block with a callback (7 days for 0838)', async () => {
      const id = await paid({ preAuth: true }, '4000000000000838');
      const p = await get(id);
      const until = new Date(p.preAuthExpiresAt).getTime();
      await s().sharedClock.advance(Math.ceil((until - s().clock.nowMs()) / 1000));
      await refresh();
      problem(await complete(id, 5), 400, 'complete-payment.400.056');
      // The same window for a void (rules/window.ts): nothing is left to void once the block is released.
      problem(await cancel(id), 400, 'cancel-payment.400.056');
      assert.equal(
        (await s().db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_operations WHERE pay_id = $1', [id]))
          .rows[0]!.n,
        0,
        'no operation recorded',
      );
      await s().sweeper.sweep();
      const after = await get(id);
      assert.equal(after.status, 'Returned');
      assert.equal(after.returnedAmount, 10);
      const { rows } = await s().db.query<{ status: string }>(
        `SELECT d.status FROM callback_deliveries d JOIN payment_events e ON e.id = d.event_id WHERE d.pay_id = $1 AND e.status = 'Returned'`,
        [id],
      );
      assert.equal(rows.length, 1, 'one Returned callback event');
      // After the sweep, the same reason (not “wrong status”): a merchant's late completion cannot
      // depend on whether the sweep has run yet.
      problem(await complete(id, 5), 400, 'complete-payment.400.056');
      problem(await cancel(id), 400, 'cancel-payment.400.056');
    });

    it('splits refunds between the two accounts and checks the IBAN and amounts', async () => {
      await toNoon();
      const id = await paid({ amount: { currency: 'GEL', total: 100 }, extra: SPLIT_IBAN, extra2: '30' });
      problem(await cancel(id, { amount: 10 }), 400, 'cancel-payment.400.054');
      problem(
        await cancel(id, { amount: 10, extra: 'GE61KB0000000101904917', extra2: 1 }),
        400,
        'cancel-payment.400.054',
      );
      problem(
        await cancel(id, { amount: 10, extra: 'GE70KB1234567890123456', extra2: 1 }),
        400,
        'cancel-payment.400.054',
      );
      problem(await cancel(id, { amount: 10, extra: SPLIT_IBAN }), 400, 'cancel-payment.400.054');
      problem(await cancel(id, { amount: 10, extra: SPLIT_IBAN, extra2: '10.01' }), 400, 'cancel-payment.400.054');
      // Merchant part 75 > its refundable 70.
      problem(await cancel(id, { amount: 80, extra: SPLIT_IBAN, extra2: 5 }), 400, 'cancel-payment.400.054');
      const r = await cancel(id, { amount: 20, extra: 'ge60 kb00 0000 0101 9049 17', extra2: '15' });
      assert.equal(r.statusCode, 200, r.body);
      let p = await get(id);
      assert.deepEqual(p.split, { iban: SPLIT_IBAN, amount: 30, returnedAmount: 15 });
      assert.equal(p.returnedAmount, 20);
      await toNoon();
      // Split account has 15 left, merchant 65: extra2 16 is too much for the split account.
      problem(await cancel(id, { amount: 20, extra: SPLIT_IBAN, extra2: 16 }), 400, 'cancel-payment.400.054');
      assert.equal((await cancel(id, { extra: SPLIT_IBAN, extra2: 15 })).json().status, 'Returned');
      p = await get(id);
      assert.deepEqual(p.split, { iban: SPLIT_IBAN, amount: 30, returnedAmount: 30 });
      assert.equal(p.returnedAmount, 100);
    });

    it('completes a split pre-authorisation only at or above the split amount', async () => {
      const id = await paid({
        preAuth: true,
        amount: { currency: 'GEL', total: 100 },
        extra: SPLIT_IBAN,
        extra2: '40',
      });
      problem(await complete(id, 39.99), 400, 'complete-payment.400.051');
      assert.equal((await complete(id, 40)).json().status, 'Succeeded');
    });

    it('charges a saved card: method 11, initiator, preAuth, declines, split cards reuse IBAN and amount', async () => {
      const first = await paid({ saveCard: true, amount: { currency: 'GEL', total: 0 } });
      const recId = (await get(first)).recurringCard.recId;
      const exec = (body: Record<string, unknown>) =>
        ctx.m.post('/v1/gateway/payments/execution', { recId, money: { amount: '12.34', currency: 'GEL' }, ...body });
      const ok = await exec({ initiator: 'merchant', merchantPaymentId: 'sub-7' });
      assert.equal(ok.statusCode, 200, ok.body);
      const p = ok.json();
      assert.deepEqual(
        [p.status, p.paymentMethod, p.initiator, p.amount, p.merchantPaymentId],
        ['Succeeded', 11, 'merchant', 12.34, 'sub-7'],
      );
      assert.equal(p.paymentCardNumber, '411111******1111');
      assert.equal(p.recurringCard.recId, recId);
      assert.equal((await exec({ preAuth: true })).json().status, 'WaitingConfirm');
      assert.equal((await exec({})).json().initiator, 'client');
      problem(await exec({ money: { amount: 0, currency: 'GEL' } }), 400, 'execute-payment.400.010');
      problem(await exec({ money: { amount: 1, currency: 'JPY' } }), 400, 'execute-payment.400.001');
      problem(await exec({ initiator: 'robot' }), 400, 'execute-payment.400.001');
      problem(
        await ctx.m.post('/v1/gateway/payments/execution', {
          recId: '0'.repeat(32),
          money: { amount: 1, currency: 'GEL' },
        }),
        404,
        'execute-payment.404.002',
      );
      const other = await MerchantClient.create(ctx.t, EVERYTHING);
      problem(
        await other.post('/v1/gateway/payments/execution', { recId, money: { amount: 1, currency: 'GEL' } }),
        404,
        'execute-payment.404.002',
      );

      // A declining card: saved through a payment approved by... the simulator declines its token charges.
      const declining = await paid({ saveCard: true });
      const decRec = (await get(declining)).recurringCard.recId;
      await s().db.query(
        `UPDATE sim_card_tokens SET behaviour = 'decline_not_sufficient_funds' WHERE token = (SELECT card_token FROM saved_cards WHERE rec_id = $1)`,
        [decRec],
      );
      const dec = (
        await ctx.m.post('/v1/gateway/payments/execution', { recId: decRec, money: { amount: 5, currency: 'GEL' } })
      ).json();
      assert.deepEqual([dec.status, dec.resultCode], ['Failed', 'decline_not_sufficient_funds']);

      const splitFirst = await paid({ saveCard: true, extra: SPLIT_IBAN, extra2: '2' });
      const splitRec = (await get(splitFirst)).recurringCard.recId;
      const sp = (
        await ctx.m.post('/v1/gateway/payments/execution', {
          recId: splitRec,
          money: { amount: 20, currency: 'GEL' },
          extra: 'ignored',
        })
      ).json();
      assert.deepEqual(sp.split, { iban: SPLIT_IBAN, amount: 2, returnedAmount: 0 });
      problem(
        await ctx.m.post('/v1/gateway/payments/execution', {
          recId: splitRec,
          money: { amount: '2.01', currency: 'GEL' },
        }),
        400,
        'execute-payment.400.021',
      );
      // A split charge is a split payment: GEL only, as create requires — and nothing is created.
      const before = Number((await s().db.query<{ n: string }>('SELECT count(*) AS n FROM payments')).rows[0]!.n);
      problem(
        await ctx.m.post('/v1/gateway/payments/execution', { recId: splitRec, money: { amount: 20, currency: 'USD' } }),
        400,
        'execute-payment.400.022',
      );
      assert.equal(
        Number((await s().db.query<{ n: string }>('SELECT count(*) AS n FROM payments')).rows[0]!.n),
        before,
      );
      // A card without a split charges in any enabled currency.
      assert.equal((await exec({ money: { amount: 20, currency: 'USD' } })).json().status, 'Succeeded');
    });

    it('keeps a pre-authorised saved card pending until completion', async () => {
      const id = await paid({ saveCard: true, preAuth: true });
      const row = (await s().db.query<{ rec_id: string }>('SELECT rec_id FROM payments WHERE pay_id = $1', [id]))
        .rows[0]!;
      problem(
        await ctx.m.post('/v1/gateway/payments/execution', {
          recId: row.rec_id,
          money: { amount: 1, currency: 'GEL' },
        }),
        400,
        'execute-payment.400.060',
      );
      await complete(id, 10);
      assert.equal((await get(id)).recurringCard.recId, row.rec_id);
      assert.equal(
        (
          await ctx.m.post('/v1/gateway/payments/execution', {
            recId: row.rec_id,
            money: { amount: 1, currency: 'GEL' },
          })
        ).json().status,
        'Succeeded',
      );
    });

    it('deletes a saved card (twice is fine, DELETE alias, unknown or foreign is 404); a deleted or expired card cannot be charged', async () => {
      const id = await paid({ saveCard: true });
      const recId = (await get(id)).recurringCard.recId;
      const del = await ctx.m.post(`/v1/gateway/payments/${recId}/delete`, {});
      assert.equal(del.statusCode, 200);
      assert.deepEqual(del.json(), { httpStatusCode: 200, developerMessage: null, userMessage: null });
      assert.equal(
        (
          await ctx.t.app.inject({
            method: 'DELETE',
            url: `/v1/gateway/payments/${recId}`,
            headers: ctx.m.headers({ 'content-type': 'application/json' }),
          })
        ).statusCode,
        200,
      );
      problem(
        await ctx.m.post('/v1/gateway/payments/execution', { recId, money: { amount: 1, currency: 'GEL' } }),
        400,
        'execute-payment.400.060',
      );
      problem(await ctx.m.post(`/v1/gateway/payments/${'1'.repeat(32)}/delete`, {}), 404, 'delete-card.404.002');
      const other = await MerchantClient.create(ctx.t, EVERYTHING);
      problem(await other.post(`/v1/gateway/payments/${recId}/delete`, {}), 404, 'delete-card.404.002');
      assert.equal((await get(id)).recurringCard, null);

      const short = await paid({
        saveCard: true,
        saveCardToDate: (() => {
          const d = new Date(s().clock.nowMs());
          return `${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCFullYear() % 100).padStart(2, '0')}`;
        })(),
      });
      const shortRec = (await get(short)).recurringCard.recId;
      await s().sharedClock.advance(32 * 86400);
      await refresh();
      const late = problem(
        await ctx.m.post('/v1/gateway/payments/execution', { recId: shortRec, money: { amount: 1, currency: 'GEL' } }),
        400,
        'execute-payment.400.060',
      );
      assert.match(late.detail, /saved until/);
    });

    it('restores the status when the acquirer refuses, and the reconciler finishes an operation left without an answer', async () => {
      await toNoon();
      const id = await paid();
      const acq = s().acquirer;
      const original = acq.refund.bind(acq);
      try {
        acq.refund = async () => ({ ok: false, resultCode: 'decline_general' });
        const refused = problem(await cancel(id, { amount: 4 }), 400, 'cancel-payment.400.055');
        assert.equal(refused.resultCode, 'decline_general');
        const p = await get(id);
        assert.deepEqual([p.status, p.returnedAmount], ['Succeeded', 0]);
        acq.refund = async () => {
          throw new AcquirerNoAnswer('connection reset');
        };
        const lost = await cancel(id, { amount: 4 });
        assert.equal(lost.statusCode, 503);
        assert.equal((await get(id)).status, 'CancelPaymentProcessing');
        // Behind an operation that never gets its answer, a cancel waits out KARIBCHE_OPERATION_WAIT_MS
        // and is told 409 whatever the wait, so the wait is cut short here (and only here).
        const wait = s().config.operationWaitMs;
        s().config.operationWaitMs = 100;
        try {
          problem(await cancel(id, { amount: 1 }), 409, 'cancel-payment.409.002');
        } finally {
          s().config.operationWaitMs = wait;
        }
      } finally {
        acq.refund = original;
      }
      await s().sharedClock.advance(61);
      await refresh();
      await (await import('./reconciler.ts')).reconcile(s());
      const p = await get(id);
      assert.deepEqual([p.status, p.returnedAmount], ['PartialReturned', 4]);
    });

    it('checks a refund again when the payment changed between its read and its write: no refund beyond what was paid', async () => {
      // Without an Idempotency-Key a refund reads the payment unlocked and records itself with one
      // statement guarded by the version it read. Here refund A's statement is held back while
      // refund B, planned on the same version, passes; A's plan is then stale (same status, less
      // left to refund): its statement changes nothing and A is checked again, and refused.
      await toNoon();
      const id = await paid({ amount: { currency: 'GEL', total: 10 } });
      await toNoon(); // a later day: partial refunds may repeat
      assert.equal((await cancel(id, { amount: 1 })).statusCode, 200); // PartialReturned, 1 returned
      const services = s();
      const gc = services.groupCommit;
      let holding!: () => void;
      const held = new Promise<void>((r) => (holding = r));
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let first = true;
      services.groupCommit = {
        async query(sql, params, name) {
          if (first && sql.includes('INSERT INTO payment_operations')) {
            first = false;
            holding();
            await gate;
          }
          return gc.query(sql, params, name);
        },
        exec: (sql) => gc.exec(sql),
        notifyOnCommit: (channel, payload) => gc.notifyOnCommit(channel, payload),
      } satisfies Queryable;
      try {
        const a = cancel(id, { amount: 6 });
        await held;
        const b = await cancel(id, { amount: 6 });
        assert.deepEqual([b.statusCode, b.json().returnedAmount], [200, 7], b.body);
        release();
        problem(await a, 400, 'cancel-payment.400.051');
      } finally {
        services.groupCommit = gc;
      }
      const p = await get(id);
      assert.deepEqual([p.status, p.returnedAmount], ['PartialReturned', 7]);
      assert.equal(await refundCount(id), 2);
    });

    it('answers a refund that the reconciler settled while its own call was out, even after a next refund began: each refund once', async () => {
      // Without an Idempotency-Key the answer is applied by one statement guarded by the payment's
      // version. Here the reconciler settled the first refund and a second one began before the
      // first call answered: the payment is in CancelPaymentProcessing again, but not at the version
      // the first refund left, so its statement changes nothing and the locked path finds it done.
      await toNoon();
      const id = await paid();
      await toNoon(); // a later day than the payment's: partial refunds may repeat
      const released: (() => void)[] = [];
      const atAcquirer: (() => void)[] = [];
      const reached = [0, 1, 2].map((i) => new Promise<void>((r) => (atAcquirer[i] = r)));
      const answers = [0, 1, 2].map((i) => new Promise<void>((r) => (released[i] = r)));
      let calls = 0;
      await withRefund(
        async () => {
          const call = calls++;
          atAcquirer[call]!();
          if (call !== 1) await answers[call]; // the reconciler's call (the second) answers at once
          return { ok: true };
        },
        async () => {
          const first = cancel(id, { amount: 4 });
          await reached[0];
          await (await import('./cancel-and-complete.ts')).reconcileOperation(s(), id);
          assert.deepEqual([(await get(id)).status, (await get(id)).returnedAmount], ['PartialReturned', 4]);
          const second = cancel(id, { amount: 3 });
          await reached[2];
          assert.equal((await get(id)).status, 'CancelPaymentProcessing');
          released[0]!();
          assert.equal((await first).statusCode, 200, (await first).body);
          released[2]!();
          const res = await second;
          assert.equal(res.statusCode, 200, res.body);
          assert.deepEqual([res.json().status, res.json().returnedAmount], ['PartialReturned', 7]);
        },
      );
      const p = await get(id);
      assert.deepEqual([p.status, p.returnedAmount], ['PartialReturned', 7]);
      const { rows } = await s().db.query<{ status: string }>(
        'SELECT status FROM payment_events WHERE pay_id = $1 ORDER BY seq',
        [id],
      );
      assert.deepEqual(rows.map((r) => r.status).slice(-4), [
        'CancelPaymentProcessing',
        'PartialReturned',
        'CancelPaymentProcessing',
        'PartialReturned',
      ]);
      const ops = await s().db.query<{ status: string; amount: number }>(
        'SELECT status, amount FROM payment_operations WHERE pay_id = $1 ORDER BY id',
        [id],
      );
      assert.deepEqual(ops.rows, [
        { status: 'done', amount: 400 },
        { status: 'done', amount: 300 },
      ]);
    });

    it('treats a bug in the acquirer connector as an error, not as a lost answer, and settles the operation once it is fixed', async () => {
      const id = await paid();
      await withRefund(
        async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'rrn')");
        },
        async () => {
          const res = await cancel(id, { amount: 4 });
          assert.equal(res.statusCode, 500, res.body);
          assert.equal(res.json().systemCode, 'cancel-payment.500.001');
          // The reconciler meets the same bug: it logs it and leaves the payment for the next round.
          await s().sharedClock.advance(61);
          await refresh();
          await (await import('./reconciler.ts')).reconcile(s());
          assert.equal((await get(id)).status, 'CancelPaymentProcessing');
        },
      );
      await (await import('./reconciler.ts')).reconcile(s());
      const p = await get(id);
      assert.deepEqual([p.status, p.returnedAmount], ['PartialReturned', 4]);
    });

    it('keeps the Idempotency-Key of a refund whose answer was lost: a retry waits (409), then replays the reconciled refund; one refund', async () => {
      const id = await paid();
      const key = { 'Idempotency-Key': 'refund-lost-1' };
      await withRefund(
        async () => {
          throw new AcquirerNoAnswer('connection reset');
        },
        async () => assert.equal((await ctx.m.post(`/v1/gateway/payments/${id}/cancel`, {}, key)).statusCode, 503),
      );
      // The refund exists (processing): the same key must not start a second one.
      problem(await ctx.m.post(`/v1/gateway/payments/${id}/cancel`, {}, key), 409, 'cancel-payment.409.001');
      await s().sharedClock.advance(61);
      await refresh();
      await (await import('./reconciler.ts')).reconcile(s());
      const replay = await ctx.m.post(`/v1/gateway/payments/${id}/cancel`, {}, key);
      assert.equal(replay.statusCode, 200, replay.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual([replay.json().status, replay.json().returnedAmount], ['Returned', 10]);
      assert.equal(await refundCount(id), 1);
    });

    it('frees the key of a refund whose first transaction rolled back after linking it (COMMIT lost), so the retry refunds once', async () => {
      const id = await paid();
      const key = { 'Idempotency-Key': 'refund-commit-lost-1' };
      const db = s().db;
      const tx = db.tx;
      const realTx = tx.bind(db);
      // The next transaction runs all its statements, then its connection breaks before COMMIT.
      db.tx = <T>(fn: (q: Queryable) => Promise<T>) => {
        db.tx = tx;
        return realTx<T>(async (q) => {
          await fn(q);
          throw new Error('Connection terminated unexpectedly');
        });
      };
      try {
        assert.equal((await ctx.m.post(`/v1/gateway/payments/${id}/cancel`, {}, key)).statusCode, 503);
      } finally {
        db.tx = tx;
      }
      assert.equal((await get(id)).status, 'Succeeded');
      const again = await ctx.m.post(`/v1/gateway/payments/${id}/cancel`, {}, key);
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual([again.json().status, again.json().returnedAmount], ['Returned', 10]);
      assert.equal(await refundCount(id), 1);
    });

    it('frees the key of a refund the acquirer refused, so the same key can try again', async () => {
      const id = await paid();
      const key = { 'Idempotency-Key': 'refund-refused-1' };
      await withRefund(
        async () => ({ ok: false, resultCode: 'decline_general' }),
        async () =>
          void problem(await ctx.m.post(`/v1/gateway/payments/${id}/cancel`, {}, key), 400, 'cancel-payment.400.055'),
      );
      const again = await ctx.m.post(`/v1/gateway/payments/${id}/cancel`, {}, key);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().status, 'Returned');
    });

    it('answers a retried saved-card charge whose first request died with the payment it created, charging once', async () => {
      const first = await paid({ saveCard: true });
      const recId = (await get(first)).recurringCard.recId;
      const body = { recId, money: { amount: '3.00', currency: 'GEL' } };
      const charged = await ctx.m.post('/v1/gateway/payments/execution', body, { 'Idempotency-Key': 'charge-77' });
      assert.equal(charged.statusCode, 200);
      // Make it look as if the process died after charging, before it stored its answer.
      const hold = (until: number) =>
        s().db.query(
          `UPDATE idempotency_keys SET recovery_point = 'acquirer_called', result = NULL, owner = 'dead-process', locked_until = $1 WHERE key = 'charge-77'`,
          [new Date(until)],
        );
      await hold(Date.now() + 60_000);
      problem(
        await ctx.m.post('/v1/gateway/payments/execution', body, { 'Idempotency-Key': 'charge-77' }),
        409,
        'execute-payment.409.001',
      );
      await hold(Date.now() - 1);
      const count = async () =>
        (
          await s().db.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE charged_rec_id = $1', [
            recId,
          ])
        ).rows[0]!.n;
      const before = await count();
      const retry = await ctx.m.post('/v1/gateway/payments/execution', body, { 'Idempotency-Key': 'charge-77' });
      assert.equal(retry.statusCode, 200, retry.body);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.json().payId, charged.json().payId);
      assert.equal(await count(), before, 'no second charge');
    });

    it('replays an idempotent refund instead of refunding twice', async () => {
      await toNoon(3600);
      const id = await paid();
      await toNoon();
      const a = await cancel(id, { amount: 1 });
      const b = await ctx.m.post(`/v1/gateway/payments/${id}/cancel`, { amount: 2 }, { 'Idempotency-Key': 'refund-1' });
      const c = await ctx.m.post(`/v1/gateway/payments/${id}/cancel`, { amount: 2 }, { 'Idempotency-Key': 'refund-1' });
      assert.equal(a.statusCode, 200);
      assert.equal(b.statusCode, 200);
      assert.equal(c.headers['idempotent-replayed'], 'true');
      assert.deepEqual(c.json(), b.json());
      assert.equal((await get(id)).returnedAmount, 3);
      problem(
        await ctx.m.post(`/v1/gateway/payments/${id}/cancel`, { amount: 3 }, { 'Idempotency-Key': 'refund-1' }),
        422,
        'cancel-payment.422.001',
      );
    });
  });
}
