// The bank profile (answers as the real bank does, its limits) and the default profile's
// Karibche-Fidelity-Warning header, through the merchant API (docs/bank-profile.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli } from '../testing/cli-process.ts';
import { BACKENDS } from '../testing/databases.ts';
import { listeningGateway } from '../testing/browser.ts';
import {
  ADMIN_TOKEN,
  EVERYTHING,
  MerchantClient,
  accessToken,
  basicPayment,
  createPaid,
  secondGateway,
  useGateway,
  type TestGateway,
} from '../testing/harness.ts';
import { Receiver } from '../testing/receiver.ts';

/** The fields of the bank's answers (tpay-reference 3.4, 4.1, 5, 6, 7). */
const BANK_CREATED = [
  'amount',
  'confirmedAmount',
  'currency',
  'developerMessage',
  'expirationMinutes',
  'httpStatusCode',
  'links',
  'payId',
  'preAuth',
  'status',
  'transactionId',
  'userMessage',
];
const BANK_PAYMENT = [
  'amount',
  'confirmedAmount',
  'currency',
  'developerMessage',
  'extra',
  'extra2',
  'httpStatusCode',
  'initiator',
  'links',
  'payId',
  'paymentCardNumber',
  'paymentMethod',
  'preAuth',
  'recurringCard',
  'resultCode',
  'returnedAmount',
  'rrn',
  'status',
  'transactionId',
  'userMessage',
];
const MESSAGES = ['developerMessage', 'httpStatusCode', 'userMessage'];
const keys = (o: object) => Object.keys(o).sort();
const karibcheHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((h) => /^(x-request-id|idempotent-replayed|karibche-)/i.test(h));

async function bankMerchant(t: TestGateway, settings: Record<string, unknown> = {}): Promise<MerchantClient> {
  const m = await MerchantClient.create(t, { ...EVERYTHING, profile: 'bank', ...settings });
  return m;
}

for (const backend of BACKENDS) {
  describe(`bank profile [${backend}]`, () => {
    const ctx = useGateway(backend, { KARIBCHE_PATH_ALIASES: 'tpay' });
    const fresh = async (m: MerchantClient) => {
      m.token = await accessToken(ctx.t.app, m.credentials);
      return m;
    };

    it('is set by the operator (default karibche), with the bank’s limits as defaults, and refuses bad values', async () => {
      const created = await ctx.t.admin('POST', '/admin/v1/merchants', { name: 'Bank-like' });
      const id = created.json().merchant.clientId;
      assert.deepEqual(
        [created.json().merchant.profile, created.json().merchant.transactionLimit, created.json().merchant.dailyLimit],
        ['karibche', 3000, 10000],
      );
      const patched = await ctx.t.admin('PATCH', `/admin/v1/merchants/${id}`, {
        profile: 'BANK',
        transactionLimit: '500.00',
        dailyLimit: 1500,
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.deepEqual(
        [patched.json().profile, patched.json().transactionLimit, patched.json().dailyLimit],
        ['bank', 500, 1500],
      );
      const bad = await ctx.t.admin('PATCH', `/admin/v1/merchants/${id}`, {
        profile: 'tbc',
        transactionLimit: '0',
        dailyLimit: '1.234',
      });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(
        bad
          .json()
          .invalidParams.map((p: { name: string }) => p.name)
          .sort(),
        ['dailyLimit', 'profile', 'transactionLimit'],
      );
      assert.equal((await ctx.t.admin('GET', `/admin/v1/merchants/${id}`)).json().profile, 'bank');
    });

    it('answers with the bank’s fields only, its resultCodes, and none of Karibche’s headers', async () => {
      const m = await bankMerchant(ctx.t);
      const created = await m.post('/v1/tpay/payments', basicPayment({ merchantPaymentId: 'order-1' }));
      assert.equal(created.statusCode, 200, created.body);
      assert.match(String(created.headers['content-type']), /^application\/json/);
      assert.deepEqual(keys(created.json()), BANK_CREATED);
      assert.equal(created.json().confirmedAmount, 0);
      assert.equal(created.json().links[1].rel, 'approval_url');
      assert.deepEqual(karibcheHeaders(created.headers), []);
      const payId = created.json().payId;
      // A failed 3-D Secure code is Karibche's decline_authentication_failed; the bank says decline_general.
      await ctx.t.admin('POST', `/sandbox/v1/payments/${payId}/simulate`, { card: '4000000000003220', otp: '0000' });
      const declined = await m.get(`/v1/tpay/payments/${payId}`);
      assert.deepEqual(keys(declined.json()), BANK_PAYMENT);
      assert.deepEqual(
        [declined.json().status, declined.json().resultCode, declined.json().links],
        ['Created', 'decline_general', null],
      );
      assert.deepEqual(karibcheHeaders(declined.headers), []);
      await ctx.t.admin('POST', `/sandbox/v1/payments/${payId}/simulate`, { card: '4111111111111111' });
      const cancel = await m.post(`/v1/tpay/payments/${payId}/cancel`, { amount: '1.00' });
      assert.equal(cancel.statusCode, 200, cancel.body);
      assert.deepEqual(keys(cancel.json()), MESSAGES);

      const held = await createPaid(ctx.t, m, { preAuth: true, saveCard: true });
      const completion = await (await fresh(m)).post(`/v1/tpay/payments/${held}/completion`, { amount: '10.00' });
      assert.deepEqual(keys(completion.json()), ['amount', 'confirmedAmount', ...MESSAGES, 'status'].sort());
      const recId = (await m.get(`/v1/tpay/payments/${held}`)).json().recurringCard.recId;
      const executed = await m.post('/v1/tpay/payments/execution', {
        recId,
        money: { amount: '2.00', currency: 'GEL' },
      });
      assert.deepEqual(keys(executed.json()), BANK_PAYMENT);
      assert.equal(executed.json().paymentMethod, 11);
      const deleted = await m.post(`/v1/tpay/payments/${recId}/delete`, {});
      assert.deepEqual(keys(deleted.json()), MESSAGES);
    });

    it('has none of Karibche’s own endpoints: each is a 404 as the bank answers it', async () => {
      const m = await bankMerchant(ctx.t);
      const payId = await createPaid(ctx.t, m, { saveCard: true });
      await fresh(m);
      const recId = (await m.get(`/v1/tpay/payments/${payId}`)).json().recurringCard.recId;
      const calls: [string, string][] = [
        ['GET', '/v1/tpay/payments'],
        ['GET', `/v1/tpay/payments/${payId}/callbacks`],
        ['POST', `/v1/tpay/payments/${payId}/callbacks/redeliver`],
        ['DELETE', `/v1/tpay/payments/${recId}`],
        ['GET', '/v1/tpay/api-keys'],
        ['POST', '/v1/tpay/api-keys'],
        ['GET', '/v1/tpay/requests'],
        ['GET', '/v1/tpay/callbacks'],
        ['GET', '/v1/tpay/no-such-thing'],
      ];
      for (const [method, url] of calls) {
        const res = await m.app.inject({
          method: method as 'GET',
          url,
          headers: m.headers(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          payload: method === 'POST' ? '{}' : undefined,
        });
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().type, 'https://developers.tbcbank.ge/docs/error-type-404');
        assert.equal(res.json().status, '404');
        assert.deepEqual(karibcheHeaders(res.headers), []);
      }
      // The card was not deleted by the refused alias.
      assert.equal((await m.get(`/v1/tpay/payments/${payId}`)).json().recurringCard.recId, recId);
    });

    it('ignores the Idempotency-Key as the bank does: a retry creates a second payment', async () => {
      const m = await bankMerchant(ctx.t);
      const key = { 'idempotency-key': 'same-key' };
      const a = await m.post('/v1/tpay/payments', basicPayment(), key);
      const b = await m.post('/v1/tpay/payments', basicPayment(), key);
      assert.notEqual(a.json().payId, b.json().payId);
      assert.equal(b.headers['idempotent-replayed'], undefined);
    });

    it('errors in the bank’s shape: application/json, its titles and systemCode sentences, only its resultCodes, a traceId', async () => {
      const m = await bankMerchant(ctx.t);
      const check = (
        res: { statusCode: number; headers: Record<string, unknown>; json(): Record<string, unknown> },
        status: number,
      ) => {
        assert.equal(res.statusCode, status);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.equal(res.headers['content-language'], 'en');
        assert.deepEqual(karibcheHeaders(res.headers), []);
        const body = res.json();
        assert.equal(body.type, `https://developers.tbcbank.ge/docs/error-type-${status}`);
        assert.equal(body.status, String(status));
        assert.match(String(body.systemCode), /^System code for problem is tpay-[a-z-]+\.\d{3}\.\d{3}$/);
        assert.match(String(body.traceId), /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
        assert.equal(body.invalidParams, undefined);
        assert.equal(body.requestId, undefined);
        return body;
      };
      // A wrong API key with the merchant's token: the bank's sample answer.
      const wrongKey = await m.app.inject({
        method: 'GET',
        url: `/v1/tpay/payments/${'0'.repeat(32)}`,
        headers: { apikey: 'nope', authorization: `Bearer ${m.token}` },
      });
      const k = check(wrongKey, 401);
      assert.deepEqual(
        [k.title, k.detail, k.systemCode],
        [
          'Invalid Api Key',
          'Please make sure api key is valid',
          'System code for problem is tpay-access-token.401.001',
        ],
      );
      // Wrong client secret, and a JSON body (the bank's token endpoint takes form data only).
      const form = await m.app.inject({
        method: 'POST',
        url: '/v1/tpay/access-token',
        headers: { apikey: m.credentials.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `client_id=${m.credentials.clientId}&client_secret=wrong`,
      });
      const f = check(form, 400);
      assert.deepEqual(
        [f.title, f.detail, f.code, f.systemCode],
        ['', '', '', 'System code for problem is tpay-access-token.400.001'],
      );
      const json = await m.app.inject({
        method: 'POST',
        url: '/v1/tpay/access-token',
        headers: { apikey: m.credentials.apiKey, 'content-type': 'application/json' },
        payload: { client_id: m.credentials.clientId, client_secret: m.credentials.clientSecret },
      });
      check(json, 400);
      const missing = check(await m.get(`/v1/tpay/payments/${'0'.repeat(32)}`), 404);
      assert.deepEqual([missing.title, missing.detail], ['InvalidPayment', 'PaymentNotFound']);
      const invalid = check(
        await m.post('/v1/tpay/payments', { amount: { currency: 'GEL', total: '-1' }, returnurl: 'x' }),
        400,
      );
      assert.equal(invalid.title, 'InvalidParameter');
      assert.equal(invalid.resultCode, undefined, 'invalid_request is not one of the bank’s resultCodes');
      const open = await (await fresh(m)).post('/v1/tpay/payments', basicPayment());
      const refused = check(await m.post(`/v1/tpay/payments/${open.json().payId}/cancel`, {}), 400);
      assert.equal(refused.resultCode, 'decline_general');
      const badToken = check(
        await m.app.inject({
          method: 'GET',
          url: `/v1/tpay/payments/${open.json().payId}`,
          headers: { apikey: m.credentials.apiKey, authorization: 'Bearer forged' },
        }),
        401,
      );
      assert.equal(badToken.title, 'Unauthorized');
      // The sandbox's simulated outage, shaped like the bank too.
      const outage = check(
        await m.get(`/v1/tpay/payments/${open.json().payId}`, { 'karibche-simulate-fault': '503' }),
        503,
      );
      assert.ok(outage.detail);
    });

    it('sends the bank’s callbacks: the body alone, unsigned', async () => {
      const receiver = await new Receiver().start();
      try {
        const m = await bankMerchant(ctx.t, {
          callbackUrlPrefixes: ['http://127.0.0.1:*'],
          defaultCallbackUrl: receiver.url,
        });
        const payId = await createPaid(ctx.t, m);
        await ctx.t.gw.services.callbacks.drain();
        await receiver.waitFor(1);
        const got = receiver.received[0]!;
        assert.equal(got.body, JSON.stringify({ PaymentId: payId }));
        assert.deepEqual(
          Object.keys(got.headers).filter((h) => /^(x-callback|webhook-)/.test(h)),
          [],
        );
      } finally {
        await receiver.stop();
      }
    });

    it('limits: 3,000.00 GEL per transaction by default (configurable), GEL only, the test-mode limit as before', async () => {
      const m = await bankMerchant(ctx.t);
      const over = await m.post('/v1/tpay/payments', basicPayment({ amount: { currency: 'GEL', total: '3000.01' } }));
      assert.equal(over.statusCode, 400, over.body);
      assert.equal(over.json().systemCode, 'System code for problem is tpay-create-payment.400.070');
      assert.equal(
        (await m.post('/v1/tpay/payments', basicPayment({ amount: { currency: 'GEL', total: '3000.00' } }))).statusCode,
        200,
      );
      assert.equal(
        (await m.post('/v1/tpay/payments', basicPayment({ amount: { currency: 'USD', total: '5000.00' } }))).statusCode,
        200,
        'no exchange rates: other currencies are not limited',
      );
      await ctx.t.admin('PATCH', `/admin/v1/merchants/${m.credentials.clientId}`, { transactionLimit: '50.00' });
      assert.equal(
        (await m.post('/v1/tpay/payments', basicPayment({ amount: { currency: 'GEL', total: '50.01' } }))).statusCode,
        400,
      );
      const payId = await createPaid(ctx.t, m, { saveCard: true, amount: { currency: 'GEL', total: '5.00' } });
      const recId = (await m.get(`/v1/tpay/payments/${payId}`)).json().recurringCard.recId;
      const execution = await m.post('/v1/tpay/payments/execution', {
        recId,
        money: { amount: '50.01', currency: 'GEL' },
      });
      assert.equal(execution.json().systemCode, 'System code for problem is tpay-execute-payment.400.070');
      await ctx.t.admin('PATCH', `/admin/v1/merchants/${m.credentials.clientId}`, {
        testMode: true,
        testAmountLimit: '20.00',
      });
      const test = await m.post('/v1/tpay/payments', basicPayment({ amount: { currency: 'GEL', total: '20.01' } }));
      assert.equal(test.json().systemCode, 'System code for problem is tpay-create-payment.400.024');
      // The default profile has no such limits.
      const plain = await MerchantClient.create(ctx.t);
      assert.equal(
        (await plain.createPayment(basicPayment({ amount: { currency: 'GEL', total: '9000.00' } }))).statusCode,
        200,
      );
    });

    it('limits: 10,000.00 GEL per business day (configurable); saved-card charges count; failed and expired payments give theirs back', async () => {
      const m = await bankMerchant(ctx.t, { dailyLimit: '100.00' });
      const create = (total: string, over: Record<string, unknown> = {}) =>
        m.post('/v1/tpay/payments', basicPayment({ amount: { currency: 'GEL', total }, ...over }));
      const first = await create('40.00', { expirationMinutes: 5 });
      assert.equal(first.statusCode, 200);
      assert.equal((await create('40.00')).statusCode, 200);
      const third = await create('40.00');
      assert.equal(third.statusCode, 400, third.body);
      assert.equal(third.json().systemCode, 'System code for problem is tpay-create-payment.400.071');
      assert.match(third.json().detail, /daily limit of 100\.00 \(80\.00 taken so far\)/);
      assert.equal((await create('20.00')).statusCode, 200, 'up to the limit exactly');
      // The first payment expires unpaid: its 40.00 is given back.
      await ctx.t.gw.services.sharedClock.advance(5 * 60 + 1);
      await ctx.t.gw.services.sweeper.sweep();
      await fresh(m);
      assert.equal((await m.get(`/v1/tpay/payments/${first.json().payId}`)).json().status, 'Expired');
      const again = await create('40.00');
      assert.equal(again.statusCode, 200, again.body);
      // A payment that fails (three declines) gives its amount back too.
      for (let i = 0; i < ctx.t.gw.services.config.maxAttempts; i++)
        await ctx.t.admin('POST', `/sandbox/v1/payments/${again.json().payId}/simulate`, { card: '4000000000000002' });
      assert.equal((await m.get(`/v1/tpay/payments/${again.json().payId}`)).json().status, 'Failed');
      assert.equal((await create('40.00')).statusCode, 200);
      const { rows } = await ctx.t.gw.services.db.query<{ total: string }>(
        'SELECT total FROM merchant_daily_volume WHERE client_id = $1',
        [m.credentials.clientId],
      );
      assert.equal(Number(rows[0]!.total), 10_000, 'the day is full: 40 + 20 + 40');
      assert.equal((await create('0.01')).statusCode, 400);
    });

    it(
      'the daily limit holds under concurrent requests' + (backend === 'postgres' ? ' from two gateway processes' : ''),
      async () => {
        const m = await bankMerchant(ctx.t, { dailyLimit: '100.00' });
        const second = backend === 'postgres' ? await secondGateway(ctx.t) : null;
        try {
          const apps = second ? [ctx.t.app, second.app] : [ctx.t.app];
          const answers = await Promise.all(
            Array.from({ length: 24 }, (_, i) =>
              apps[i % apps.length]!.inject({
                method: 'POST',
                url: '/v1/gateway/payments',
                headers: m.headers({ 'content-type': 'application/json' }),
                payload: basicPayment({ amount: { currency: 'GEL', total: '10.00' } }),
              }),
            ),
          );
          const codes = answers.map((r) => r.statusCode);
          const count = (c: number) => codes.filter((x) => x === c).length;
          // Exactly the limit is created; every other request is the daily-limit refusal — or, on a
          // shared PostgreSQL out of connections, a 503 that created nothing either.
          assert.equal(count(200), 10, codes.join(','));
          assert.equal(count(400) + count(503), 14, codes.join(','));
          for (const r of answers.filter((a) => a.statusCode === 400))
            assert.match(r.json().systemCode, /create-payment\.400\.071$/);
          if (count(503))
            console.log(
              `[daily limit race] ${count(503)} of 24 requests met an unavailable database (503) and created nothing`,
            );
          const { rows } = await ctx.t.gw.services.db.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM payments WHERE client_id = $1',
            [m.credentials.clientId],
          );
          assert.equal(rows[0]!.n, 10, 'a refused payment is not created');
        } finally {
          if (second) {
            await second.close();
            await second.services.db.close();
          }
        }
      },
    );
  });

  describe(`default profile: Karibche-Fidelity-Warning [${backend}]`, () => {
    const ctx = useGateway(backend);
    const warnings = (res: { headers: Record<string, unknown> }) => {
      const h = res.headers['karibche-fidelity-warning'];
      return h === undefined ? [] : Array.isArray(h) ? h : String(h).split(/, (?=[A-Za-z])/);
    };

    it('says nothing when the request relies only on what the bank has', async () => {
      const res = await ctx.m.createPayment(basicPayment({ extra: '', description: 'Order' }));
      assert.equal(res.statusCode, 200);
      assert.deepEqual(warnings(res), []);
      assert.ok(res.headers['x-request-id'], 'Karibche’s own headers stay in the default profile');
      assert.deepEqual(warnings(await ctx.m.getPayment(res.json().payId)), []);
    });

    it('names the Idempotency-Key, Karibche-only endpoints, fields the bank ignores and a JSON token request', async () => {
      const keyed = await ctx.m.createPayment(basicPayment(), { 'idempotency-key': 'k1' });
      assert.match(warnings(keyed).join('|'), /^Idempotency-Key: the bank ignores this header/);
      const replay = await ctx.m.createPayment(basicPayment(), { 'idempotency-key': 'k1' });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(warnings(replay).length, 1, 'the replay is warned about too');
      for (const url of [
        '/v1/gateway/payments',
        '/v1/gateway/api-keys',
        '/v1/gateway/requests',
        `/v1/gateway/payments/${keyed.json().payId}/callbacks`,
      ]) {
        const res = await ctx.m.get(url);
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        assert.match(warnings(res).join('|'), /^GET \/[a-z-/:A-Za-z]+: the bank has no such endpoint$/, url);
      }
      const ignored = await ctx.m.createPayment({
        ...basicPayment(),
        grant_type: 'client_credentials',
        amount: { currency: 'GEL', total: 10, currencyCode: 'GEL' },
      });
      assert.equal(ignored.statusCode, 200, ignored.body);
      assert.deepEqual(warnings(ignored).sort(), [
        'field amount.currencyCode: the bank ignores it (and so does Karibche)',
        'field grant_type: the bank ignores it (and so does Karibche)',
      ]);
      const token = await ctx.t.app.inject({
        method: 'POST',
        url: '/v1/gateway/access-token',
        headers: { apikey: ctx.m.credentials.apiKey, 'content-type': 'application/json' },
        payload: { client_id: ctx.m.credentials.clientId, client_secret: ctx.m.credentials.clientSecret },
      });
      assert.equal(token.statusCode, 200);
      assert.match(warnings(token).join('|'), /form data/);
      // A failed request is warned about as well.
      const failed = await ctx.m.get('/v1/gateway/payments?status=Nope', { 'idempotency-key': 'x' });
      assert.equal(failed.statusCode, 400);
      assert.equal(warnings(failed).length, 2);
    });
  });
}

describe('karibche merchant update --profile bank', () => {
  it('sets the profile and limits through the CLI', async () => {
    const { t, base } = await listeningGateway(BACKENDS[0]!);
    try {
      const m = await MerchantClient.create(t);
      const { code, stdout, stderr } = await runCli(
        [
          'merchant',
          'update',
          m.credentials.clientId,
          '--profile',
          'bank',
          '--transaction-limit',
          '1500.00',
          '--daily-limit',
          '4000',
          '--json',
        ],
        { KARIBCHE_URL: base, KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN },
      );
      assert.equal(code, 0, stderr);
      const view = JSON.parse(stdout);
      assert.deepEqual([view.profile, view.transactionLimit, view.dailyLimit], ['bank', 1500, 4000]);
    } finally {
      await t.close();
    }
  });
});
