import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../testing/databases.ts';
import {
  EVERYTHING,
  MerchantClient,
  accessToken,
  SPLIT_IBAN,
  basicPayment,
  countRows,
  startTestGateway,
  useGateway,
  type TestGateway,
} from '../../testing/harness.ts';

function assertProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json(): any },
  status: number,
  systemCode: string,
) {
  assert.equal(res.statusCode, status, JSON.stringify(res.json()));
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.equal(body.systemCode, systemCode, JSON.stringify(body));
  assert.equal(body.status, String(status));
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
  assert.equal(body.type, `http://gateway.test/docs/errors#${systemCode}`);
  if (status === 400) assert.equal(typeof body.resultCode, 'string');
  return body;
}

for (const backend of BACKENDS) {
  describe(`create and get payment [${backend}]`, () => {
    const ctx = useGateway(backend);

    it('creates a payment with the seed response shape and approval_url at links[1]', async () => {
      const res = await ctx.m.createPayment(
        basicPayment({ amount: { currency: 'GEL', total: '10.50' }, merchantPaymentId: 'order-1' }),
      );
      assert.equal(res.statusCode, 200, res.body);
      const p = res.json();
      assert.match(p.payId, /^[0-9a-f]{32}$/);
      assert.deepEqual(p, {
        payId: p.payId,
        status: 'Created',
        currency: 'GEL',
        amount: 10.5,
        confirmedAmount: 0,
        links: [
          { uri: `http://gateway.test/v1/gateway/payments/${p.payId}`, method: 'GET', rel: 'self' },
          { uri: `http://gateway.test/checkout/${p.payId}`, method: 'REDIRECT', rel: 'approval_url' },
        ],
        transactionId: null,
        recId: null,
        preAuth: false,
        expirationMinutes: 12,
        httpStatusCode: 200,
        developerMessage: null,
        userMessage: null,
      });

      const got = await ctx.m.getPayment(p.payId);
      assert.equal(got.statusCode, 200);
      const g = got.json();
      assert.equal(g.status, 'Created');
      assert.equal(g.amount, 10.5);
      assert.equal(g.confirmedAmount, 0);
      assert.equal(g.returnedAmount, 0);
      assert.deepEqual(g.links, p.links);
      for (const k of [
        'transactionId',
        'paymentMethod',
        'rrn',
        'resultCode',
        'preAuthExpiresAt',
        'recurringCard',
        'paymentCardNumber',
        'extra',
        'extra2',
        'split',
      ]) {
        assert.equal(g[k], null, k);
      }
      assert.equal(g.merchantPaymentId, 'order-1');
      assert.equal(g.initiator, 'client');
      assert.equal(g.preAuth, false);
      assert.equal(new Date(g.expiresAt).getTime() - new Date(g.createdAt).getTime(), 12 * 60_000);
      assert.equal(g.httpStatusCode, 200);
    });

    it('binds leniently: case-insensitive names, nulls, decimal strings, unknown fields, header case', async () => {
      const res = await ctx.t.app.inject({
        method: 'POST',
        url: '/v1/gateway/payments',
        headers: {
          ApiKey: ctx.m.credentials.apiKey,
          Authorization: `Bearer ${ctx.m.token}`,
          'Content-Type': 'application/json',
        },
        payload: {
          Amount: { Currency: 'gel', subTotal: '10.50', Tax: 1, shipping: null, Total: null },
          returnUrl: 'https://shop.example/return',
          CallbackURL: null,
          InstallmentProducts: [
            { Name: 'Phone', Price: '5.25', Quantity: 2 },
            { name: 'Case', price: 1, quantity: 1 },
          ],
          methods: [8, 5],
          ExpirationMinutes: 30,
          somethingElse: { nested: true },
          Language: 'en',
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const p = res.json();
      assert.equal(p.amount, 11.5);
      assert.equal(p.expirationMinutes, 30);
      const row = (await ctx.t.gw.services.db.query<any>('SELECT * FROM payments WHERE pay_id = $1', [p.payId]))
        .rows[0];
      assert.equal(row.language, 'EN');
      assert.equal(row.subtotal, 1050);
      assert.equal(row.tax, 100);
      assert.equal(row.shipping, null);
      assert.deepEqual(row.methods, [8, 5]);
      assert.deepEqual(row.installment_products, [
        { name: 'Phone', price: 525, quantity: 2 },
        { name: 'Case', price: 100, quantity: 1 },
      ]);
    });

    it('creates split payments and shows the split in get-payment', async () => {
      const res = await ctx.m.createPayment(basicPayment({ extra: SPLIT_IBAN, extra2: '9.90' }));
      assert.equal(res.statusCode, 200, res.body);
      const g = (await ctx.m.getPayment(res.json().payId)).json();
      assert.deepEqual(g.split, { iban: SPLIT_IBAN, amount: 9.9, returnedAmount: 0 });
      assert.equal(g.extra, SPLIT_IBAN);
      assert.equal(g.extra2, '9.90');
    });

    it('returns a recId for saveCard (0 amount allowed) and echoes preAuth', async () => {
      const res = await ctx.m.createPayment(
        basicPayment({ amount: { currency: 'GEL', total: 0 }, saveCard: true, saveCardToDate: '1230', preAuth: true }),
      );
      assert.equal(res.statusCode, 200, res.body);
      const p = res.json();
      assert.match(p.recId, /^[0-9a-f]{32}$/);
      assert.equal(p.preAuth, true);
      assert.equal(p.amount, 0);
      const g = (await ctx.m.getPayment(p.payId)).json();
      assert.equal(g.recurringCard, null, 'the card is usable only once it is actually saved');
    });

    // Every rejection: status, systemCode, the fields named, and nothing created.
    const rejections: [string, Record<string, unknown>, string, string[]][] = [
      ['missing amount and returnurl', {}, 'create-payment.400.001', ['amount', 'returnurl']],
      [
        'wrong types',
        { amount: { currency: 5, total: true }, returnurl: 7, methods: 'all', preAuth: 'yes' },
        'create-payment.400.001',
        ['amount.currency', 'amount.total', 'returnurl', 'methods', 'preAuth'],
      ],
      [
        'three decimals',
        basicPayment({ amount: { currency: 'GEL', total: '1.005' } }),
        'create-payment.400.001',
        ['amount.total'],
      ],
      [
        'negative total',
        basicPayment({ amount: { currency: 'GEL', total: -1 } }),
        'create-payment.400.001',
        ['amount.total'],
      ],
      [
        'zero total without saveCard',
        basicPayment({ amount: { currency: 'GEL', total: 0 } }),
        'create-payment.400.010',
        ['amount.total'],
      ],
      [
        'above the maximum',
        basicPayment({ amount: { currency: 'GEL', total: '1000000.01' } }),
        'create-payment.400.010',
        ['amount.total'],
      ],
      [
        'unknown currency',
        basicPayment({ amount: { currency: 'JPY', total: 1 } }),
        'create-payment.400.001',
        ['amount.currency'],
      ],
      ['relative returnurl', basicPayment({ returnurl: '/thanks' }), 'create-payment.400.001', ['returnurl']],
      [
        'extra too long for split IBAN check',
        basicPayment({ extra: 'GE61KB0000000101904917', extra2: '1' }),
        'create-payment.400.019',
        ['extra'],
      ],
      [
        'IBAN of another bank',
        basicPayment({ extra: 'GE64TB0000000101904917', extra2: '1' }),
        'create-payment.400.020',
        ['extra'],
      ],
      ['split over 99%', basicPayment({ extra: SPLIT_IBAN, extra2: '9.91' }), 'create-payment.400.021', ['extra2']],
      ['split above total', basicPayment({ extra: SPLIT_IBAN, extra2: '11' }), 'create-payment.400.021', ['extra2']],
      [
        'split in USD',
        basicPayment({ amount: { currency: 'USD', total: 10 }, extra: SPLIT_IBAN, extra2: '1' }),
        'create-payment.400.022',
        ['amount.currency'],
      ],
      ['split without extra2', basicPayment({ extra: SPLIT_IBAN }), 'create-payment.400.023', ['extra2']],
      [
        'split with installment',
        basicPayment({
          extra: SPLIT_IBAN,
          extra2: '1',
          methods: [8],
          installmentProducts: [{ price: 10, quantity: 1 }],
        }),
        'create-payment.400.013',
        ['methods[0]'],
      ],
      ['bad IP', basicPayment({ userIpAddress: '1.2.3' }), 'create-payment.400.001', ['userIpAddress']],
      ['expiration 0', basicPayment({ expirationMinutes: 0 }), 'create-payment.400.001', ['expirationMinutes']],
      ['expiration 1441', basicPayment({ expirationMinutes: 1441 }), 'create-payment.400.001', ['expirationMinutes']],
      ['unknown method', basicPayment({ methods: [3] }), 'create-payment.400.001', ['methods[0]']],
      ['method 11', basicPayment({ methods: [11] }), 'create-payment.400.001', ['methods[0]']],
      ['duplicate method', basicPayment({ methods: [5, 5] }), 'create-payment.400.001', ['methods[1]']],
      [
        'installment in EUR',
        basicPayment({
          amount: { currency: 'EUR', total: 10 },
          methods: [8],
          installmentProducts: [{ price: 10, quantity: 1 }],
        }),
        'create-payment.400.013',
        ['methods[0]'],
      ],
      [
        'installment without products',
        basicPayment({ methods: [8] }),
        'create-payment.400.015',
        ['installmentProducts'],
      ],
      [
        'installment sum mismatch',
        basicPayment({ methods: [8], installmentProducts: [{ price: '3.33', quantity: 3 }] }),
        'create-payment.400.015',
        ['installmentProducts'],
      ],
      [
        'installment bad product',
        basicPayment({ methods: [8], installmentProducts: [{ price: 0, quantity: 1.5 }] }),
        'create-payment.400.001',
        ['installmentProducts[0].quantity'],
      ],
      [
        'Google Pay with preAuth',
        basicPayment({ methods: [14], preAuth: true }),
        'create-payment.400.013',
        ['methods[0]'],
      ],
      [
        'Web QR with saveCard',
        basicPayment({ methods: [4], saveCard: true }),
        'create-payment.400.013',
        ['methods[0]'],
      ],
      [
        'Apple Pay with saveCard',
        basicPayment({ methods: [9, 5], saveCard: true }),
        'create-payment.400.013',
        ['methods[0]'],
      ],
      [
        'unregistered callbackUrl',
        basicPayment({ callbackUrl: 'https://evil.example/cb' }),
        'create-payment.400.016',
        ['callbackUrl'],
      ],
      [
        'saveCardToDate month 13',
        basicPayment({ saveCard: true, saveCardToDate: '1329' }),
        'create-payment.400.001',
        ['saveCardToDate'],
      ],
      [
        'saveCardToDate in the past',
        basicPayment({ saveCard: true, saveCardToDate: '0120' }),
        'create-payment.400.018',
        ['saveCardToDate'],
      ],
      ['language DE', basicPayment({ language: 'DE' }), 'create-payment.400.001', ['language']],
      [
        'description 31 chars',
        basicPayment({ description: 'ა'.repeat(31) }),
        'create-payment.400.001',
        ['description'],
      ],
      [
        'merchantPaymentId 65 chars',
        basicPayment({ merchantPaymentId: 'x'.repeat(65) }),
        'create-payment.400.001',
        ['merchantPaymentId'],
      ],
      [
        'several fields at once',
        basicPayment({
          amount: { currency: 'GEL', total: '1.001' },
          returnurl: 'x',
          language: 'FR',
          expirationMinutes: 0,
        }),
        'create-payment.400.001',
        ['amount.total', 'returnurl', 'expirationMinutes', 'language'],
      ],
    ];
    for (const [name, body, code, fields] of rejections) {
      it(`rejects: ${name}`, async () => {
        const before = await countRows(ctx.t, 'payments');
        const res = await ctx.m.createPayment(body);
        const problem = assertProblem(res, 400, code);
        const names = (problem.invalidParams ?? []).map((p: { name: string }) => p.name);
        for (const f of fields) assert.ok(names.includes(f), `${f} in ${JSON.stringify(problem.invalidParams)}`);
        assert.ok(
          fields.some((f) => problem.detail.includes(f)),
          problem.detail,
        );
        assert.equal(await countRows(ctx.t, 'payments'), before, 'nothing created');
      });
    }

    it('enforces merchant settings: currency, methods, saved cards, split enrolment, test-mode limit', async () => {
      const narrow = await MerchantClient.create(ctx.t, {
        currencies: ['GEL'],
        methods: [5],
        testMode: true,
        testAmountLimit: '50.00',
      });
      assertProblem(
        await narrow.createPayment(basicPayment({ amount: { currency: 'USD', total: 1 } })),
        400,
        'create-payment.400.011',
      );
      assertProblem(await narrow.createPayment(basicPayment({ methods: [4] })), 400, 'create-payment.400.012');
      assertProblem(await narrow.createPayment(basicPayment({ saveCard: true })), 400, 'create-payment.400.017');
      assertProblem(
        await narrow.createPayment(basicPayment({ amount: { currency: 'GEL', total: '50.01' } })),
        400,
        'create-payment.400.024',
      );
      assert.equal(
        (await narrow.createPayment(basicPayment({ amount: { currency: 'GEL', total: '50.00' } }))).statusCode,
        200,
      );
      // Not enrolled in split: extra/extra2 are free text.
      const free = await narrow.createPayment(basicPayment({ extra: 'Invoice 42', extra2: 'Thank you' }));
      assert.equal(free.statusCode, 200, free.body);
      assert.equal((await narrow.getPayment(free.json().payId)).json().split, null);
      assertProblem(await narrow.createPayment(basicPayment({ extra: 'x'.repeat(26) })), 400, 'create-payment.400.001');
      // No method left: only Web QR enabled and saveCard asked.
      const qrOnly = await MerchantClient.create(ctx.t, { methods: [4], saveCardEnabled: true });
      assertProblem(await qrOnly.createPayment(basicPayment({ saveCard: true })), 400, 'create-payment.400.014');
    });

    it('hides other merchants’ payments exactly like unknown ones', async () => {
      const a = (await ctx.m.createPayment(basicPayment())).json().payId;
      const other = await MerchantClient.create(ctx.t, EVERYTHING);
      const foreign = await other.getPayment(a);
      const unknown = await other.getPayment('0'.repeat(32));
      const body1 = assertProblem(foreign, 404, 'get-payment.404.001');
      const body2 = assertProblem(unknown, 404, 'get-payment.404.001');
      assert.equal(body1.detail, body2.detail);
      assertProblem(await other.getPayment('not-a-pay-id'), 404, 'get-payment.404.001');
      assert.equal((await ctx.m.getPayment(a)).statusCode, 200);
    });

    it('replays an idempotent create, refuses a different body (422), and counts one payment', async () => {
      const body = basicPayment({ amount: { currency: 'GEL', total: 7 } });
      const before = await countRows(ctx.t, 'payments');
      const first = await ctx.m.createPayment(body, { 'Idempotency-Key': 'order-77' });
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      // Same body spelled differently (key order and case) is the same request.
      const again = await ctx.m.createPayment(
        { ReturnUrl: body.returnurl, amount: { total: 7, currency: 'GEL' } },
        { 'idempotency-key': 'order-77' },
      );
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      const different = await ctx.m.createPayment(basicPayment({ amount: { currency: 'GEL', total: 8 } }), {
        'Idempotency-Key': 'order-77',
      });
      assertProblem(different, 422, 'create-payment.422.001');
      assert.equal(await countRows(ctx.t, 'payments'), before + 1);
      // Another merchant may use the same key.
      const other = await MerchantClient.create(ctx.t, EVERYTHING);
      const theirs = await other.createPayment(body, { 'Idempotency-Key': 'order-77' });
      assert.equal(theirs.statusCode, 200);
      assert.notEqual(theirs.json().payId, first.json().payId);
    });

    it('frees the key when the request was rejected, and expires keys after 24 h', async () => {
      const bad = await ctx.m.createPayment(basicPayment({ returnurl: 'nope' }), { 'Idempotency-Key': 'retry-me' });
      assertProblem(bad, 400, 'create-payment.400.001');
      const good = await ctx.m.createPayment(basicPayment(), { 'Idempotency-Key': 'retry-me' });
      assert.equal(good.statusCode, 200);
      assert.equal(good.headers['idempotent-replayed'], undefined);
      await ctx.t.gw.services.sharedClock.advance(24 * 3600 + 1);
      ctx.m.token = await accessToken(ctx.t.app, ctx.m.credentials); // the old token expired with the 24 h
      const later = await ctx.m.createPayment(basicPayment({ amount: { currency: 'GEL', total: 3 } }), {
        'Idempotency-Key': 'retry-me',
      });
      assert.equal(later.statusCode, 200);
      assert.notEqual(later.json().payId, good.json().payId);
      assertProblem(
        await ctx.m.createPayment(basicPayment(), { 'Idempotency-Key': 'x'.repeat(256) }),
        400,
        'create-payment.400.001',
      );
    });

    it('handles a burst of identical keyed requests: one payment, the rest replays or 409', async () => {
      const before = await countRows(ctx.t, 'payments');
      const body = basicPayment({ amount: { currency: 'GEL', total: 42 } });
      const results = await Promise.all(
        Array.from({ length: 12 }, () => ctx.m.createPayment(body, { 'Idempotency-Key': 'burst' })),
      );
      const codes = results.map((r) => r.statusCode);
      const fresh = results.filter((r) => r.statusCode === 200 && r.headers['idempotent-replayed'] === undefined);
      assert.equal(fresh.length, 1, `codes ${codes}`);
      assert.ok(
        codes.every((c) => c === 200 || c === 409),
        `codes ${codes}`,
      );
      for (const r of results.filter((r) => r.statusCode === 409)) assertProblem(r, 409, 'create-payment.409.001');
      for (const r of results.filter((r) => r.statusCode === 200)) assert.equal(r.json().payId, fresh[0]!.json().payId);
      assert.equal(await countRows(ctx.t, 'payments'), before + 1);
    });

    it('answers 409 while a request with the key is still running, and lets a retry take over a dead claim', async () => {
      const body = basicPayment({ amount: { currency: 'GEL', total: 43 } });
      const first = await ctx.m.createPayment(body, { 'Idempotency-Key': 'in-flight' });
      assert.equal(first.statusCode, 200);
      // Make the key look like another process is still working on it (its lock runs in real time).
      const db = ctx.t.gw.services.db;
      const hold = (until: number) =>
        db.query(
          `UPDATE idempotency_keys SET recovery_point = 'claimed', result = NULL, owner = 'another-process', locked_until = $1 WHERE key = 'in-flight'`,
          [new Date(until)],
        );
      await hold(Date.now() + 60_000);
      const busy = await ctx.m.createPayment(body, { 'Idempotency-Key': 'in-flight' });
      const problem = assertProblem(busy, 409, 'create-payment.409.001');
      assert.ok(problem.detail);
      assert.equal(busy.headers['retry-after'], '1');
      // Moving the sandbox clock does not make a live claim look dead: liveness is real time.
      await ctx.t.gw.services.sharedClock.advance(3600);
      assertProblem(await ctx.m.createPayment(body, { 'Idempotency-Key': 'in-flight' }), 409, 'create-payment.409.001');
      // The claiming process died and its lock ran out: a retry takes the key over and runs the request.
      await hold(Date.now() - 1);
      const retry = await ctx.m.createPayment(body, { 'Idempotency-Key': 'in-flight' });
      assert.equal(retry.statusCode, 200);
      assert.equal(retry.headers['idempotent-replayed'], undefined);
    });

    it('answers body and media errors with problem JSON', async () => {
      const malformed = await ctx.t.app.inject({
        method: 'POST',
        url: '/v1/gateway/payments',
        headers: ctx.m.headers({ 'content-type': 'application/json' }),
        payload: '{"amount":',
      });
      assertProblem(malformed, 400, 'create-payment.400.002');
      const proto = await ctx.t.app.inject({
        method: 'POST',
        url: '/v1/gateway/payments',
        headers: ctx.m.headers({ 'content-type': 'application/json' }),
        payload: '{"__proto__":{"x":1},"amount":{}}',
      });
      // Valid JSON with an unknown property (issue 26): ignored, and the body is judged without it.
      assertProblem(proto, 400, 'create-payment.400.001');
      const big = await ctx.m.createPayment({ ...basicPayment(), pad: 'x'.repeat(70 * 1024) });
      assertProblem(big, 413, 'create-payment.413.001');
      const text = await ctx.t.app.inject({
        method: 'POST',
        url: '/v1/gateway/payments',
        headers: ctx.m.headers({ 'content-type': 'text/plain' }),
        payload: 'hi',
      });
      assertProblem(text, 415, 'create-payment.415.001');
      const array = await ctx.m.post('/v1/gateway/payments', [1, 2]);
      assertProblem(array, 400, 'create-payment.400.001');
      const empty = await ctx.t.app.inject({
        method: 'POST',
        url: '/v1/gateway/payments',
        headers: ctx.m.headers({ 'content-type': 'application/json' }),
      });
      assertProblem(empty, 400, 'create-payment.400.001');
    });

    it('ignores a Content-Type header on a GET without a body', async () => {
      const id = (await ctx.m.createPayment(basicPayment())).json().payId;
      const res = await ctx.m.get(`/v1/gateway/payments/${id}`, { 'content-type': 'application/json' });
      assert.equal(res.statusCode, 200, res.body);
    });
  });

  describe(`product path aliases [${backend}]`, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(backend, { KARIBCHE_PATH_ALIASES: 'tpay' });
    });
    after(() => t.close());

    it('serves the same API under /v1/tpay with links on that path', async () => {
      const m = await MerchantClient.create(t);
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/tpay/payments',
        headers: m.headers({ 'content-type': 'application/json' }),
        payload: basicPayment(),
      });
      assert.equal(res.statusCode, 200, res.body);
      const p = res.json();
      assert.equal(p.links[0].uri, `http://gateway.test/v1/tpay/payments/${p.payId}`);
      assert.equal((await m.get(`/v1/tpay/payments/${p.payId}`)).statusCode, 200);
      assert.equal((await m.get(`/v1/gateway/payments/${p.payId}`)).statusCode, 200);
      const tok = await t.app.inject({
        method: 'POST',
        url: '/v1/tpay/access-token',
        headers: { apikey: m.credentials.apiKey },
        payload: { client_id: m.credentials.clientId, client_secret: m.credentials.clientSecret },
      });
      assert.equal(tok.statusCode, 200);
    });
  });
}
