// Security suite: merchant isolation on every payment and saved-card operation, the operator and
// sandbox APIs closed without the admin token (and the sandbox absent in production), CSRF on every
// checkout form, the checkout's headers and cookie in production, and no card number or security
// code in any table or log line after card payments through every path. Token attacks, brute-force
// limits and the callback SSRF guard have their own tests (listed in docs/SECURITY.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../src/testing/databases.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createGateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/logger.ts';
import { SimulatorAcquirer } from '../../src/acquirer/simulator.ts';
import { Clock } from '../../src/clock.ts';
import {
  ADMIN_TOKEN,
  MerchantClient,
  TEST_ACQUIRER_MODULE,
  basicPayment,
  createPaid,
  startTestGateway,
  type TestGateway,
} from '../../src/testing/harness.ts';
import { openTestDb } from '../../src/testing/databases.ts';
import { checkNoCardData } from '../reliability/checks.ts';
import { cardNumbersIn } from '../../src/payments/card.ts';

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0]!;

const ADMIN_ENDPOINTS: [string, string][] = [
  ['POST', '/admin/v1/merchants'],
  ['GET', '/admin/v1/merchants'],
  ['GET', '/admin/v1/merchants/:clientId'],
  ['PATCH', '/admin/v1/merchants/:clientId'],
  ['POST', '/admin/v1/merchants/:clientId/api-keys'],
  ['POST', '/admin/v1/merchants/:clientId/client-secret'],
  ['POST', '/admin/v1/merchants/:clientId/callback-secret'],
  ['POST', '/admin/v1/signing-keys'],
];
const SANDBOX_ENDPOINTS: [string, string][] = [
  ['GET', '/sandbox/v1/clock'],
  ['POST', '/sandbox/v1/clock'],
  ['POST', '/sandbox/v1/payments/:payId/simulate'],
  ['POST', '/sandbox/v1/callbacks/test'],
];

/** Everything about a payment and its saved card that an operation could change. */
async function stateOf(t: TestGateway, payId: string): Promise<string> {
  const db = t.gw.services.db;
  const parts = await Promise.all([
    db.query('SELECT * FROM payments WHERE pay_id = $1', [payId]),
    db.query('SELECT * FROM saved_cards WHERE pay_id = $1', [payId]),
    db.query('SELECT id, seq, status FROM payment_events WHERE pay_id = $1 ORDER BY id', [payId]),
    db.query('SELECT * FROM payment_operations WHERE pay_id = $1 ORDER BY id', [payId]),
    db.query('SELECT event_id, status, attempts FROM callback_deliveries WHERE pay_id = $1 ORDER BY event_id', [payId]),
  ]);
  return JSON.stringify(parts.map((p) => p.rows));
}

for (const backend of BACKENDS) {
  describe(`security [${backend}]`, () => {
    let t: TestGateway;
    let a: MerchantClient;
    let b: MerchantClient;
    const logs: string[] = [];
    before(async () => {
      t = await startTestGateway(
        backend,
        { LOG_LEVEL: 'trace' },
        { logStream: { write: (line) => void logs.push(line) } },
      );
      a = await MerchantClient.create(t);
      b = await MerchantClient.create(t);
    });
    after(() => t.close());

    it('answers another merchant 404 on every payment and saved-card operation, exactly as for an unknown id, and changes nothing', async () => {
      const paid = await createPaid(t, a, { saveCard: true });
      const held = await createPaid(t, a, { preAuth: true });
      const recId = (await a.getPayment(paid)).json().recurringCard.recId as string;
      const unknownPay = 'f'.repeat(32);
      const unknownRec = 'e'.repeat(32);
      const before = [await stateOf(t, paid), await stateOf(t, held)];
      b.token = (
        await t.app.inject({
          method: 'POST',
          url: '/v1/gateway/access-token',
          headers: { apikey: b.credentials.apiKey, 'content-type': 'application/json' },
          payload: { client_id: b.credentials.clientId, client_secret: b.credentials.clientSecret },
        })
      ).json().access_token;
      const attempts: [string, string, (id: string) => string, unknown, string, string][] = [
        ['GET', 'get payment', (id) => `/v1/gateway/payments/${id}`, undefined, paid, unknownPay],
        ['POST', 'cancel', (id) => `/v1/gateway/payments/${id}/cancel`, {}, paid, unknownPay],
        ['POST', 'void', (id) => `/v1/gateway/payments/${id}/cancel`, {}, held, unknownPay],
        ['POST', 'completion', (id) => `/v1/gateway/payments/${id}/completion`, { amount: '1.00' }, held, unknownPay],
        ['GET', 'callback log', (id) => `/v1/gateway/payments/${id}/callbacks`, undefined, paid, unknownPay],
        ['POST', 'redeliver', (id) => `/v1/gateway/payments/${id}/callbacks/redeliver`, {}, paid, unknownPay],
        [
          'POST',
          'execute saved card',
          () => '/v1/gateway/payments/execution',
          { money: { amount: '1.00', currency: 'GEL' } },
          recId,
          unknownRec,
        ],
        ['POST', 'delete saved card', (id) => `/v1/gateway/payments/${id}/delete`, undefined, recId, unknownRec],
        ['DELETE', 'delete saved card (DELETE)', (id) => `/v1/gateway/payments/${id}`, undefined, recId, unknownRec],
      ];
      for (const [method, name, url, body, foreignId, unknownId] of attempts) {
        const send = (id: string) =>
          t.app.inject({
            method: method as 'GET',
            url: url(id),
            headers: b.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
            payload: name.startsWith('execute') ? { ...(body as object), recId: id } : (body as object | undefined),
          });
        const foreign = await send(foreignId);
        const unknown = await send(unknownId);
        assert.equal(foreign.statusCode, 404, `${name}: ${foreign.body}`);
        assert.equal(unknown.statusCode, 404, `${name} unknown: ${unknown.body}`);
        const strip = (r: typeof foreign) => ({ ...r.json(), requestId: undefined, detail: undefined });
        assert.deepEqual(strip(foreign), strip(unknown), `${name}: a foreign id answers exactly like an unknown one`);
      }
      assert.deepEqual([await stateOf(t, paid), await stateOf(t, held)], before, 'nothing changed');
      // The owner still can: the 404s were isolation, not broken ids.
      assert.equal((await a.getPayment(paid)).statusCode, 200);
    });

    it('refuses every operator and sandbox endpoint without the admin token or with a wrong one', async () => {
      const payId = (await a.createPayment(basicPayment())).json().payId as string;
      const fill = (p: string) => p.replace(':clientId', a.credentials.clientId).replace(':payId', payId);
      let refused = 0;
      for (const [method, path] of [...ADMIN_ENDPOINTS, ...SANDBOX_ENDPOINTS]) {
        for (const authorization of [
          undefined,
          'Bearer wrong-token-0123456789abcdefghij',
          `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`,
          a.headers().authorization,
        ]) {
          const res = await t.app.inject({
            method: method as 'GET',
            url: fill(path),
            headers: { ...(authorization ? { authorization } : {}), 'content-type': 'application/json' },
            payload: method === 'GET' ? undefined : { name: 'x', advanceSeconds: 60, card: '4111111111111111' },
          });
          assert.equal(res.statusCode, 401, `${method} ${path} with ${authorization?.slice(0, 12)}: ${res.body}`);
          assert.match(String(res.headers['www-authenticate']), /^Bearer/);
          refused++;
        }
      }
      assert.equal(refused, (ADMIN_ENDPOINTS.length + SANDBOX_ENDPOINTS.length) * 4);
      assert.equal(
        (await t.admin('GET', `/v1/gateway/payments/${payId}`)).statusCode,
        401,
        'the admin token is no merchant token either',
      );
    });

    it('requires the CSRF token and its cookie on every checkout form (pay, 3-D Secure, banking app)', async () => {
      const id = (await a.createPayment(basicPayment())).json().payId as string;
      const page = await t.app.inject({ method: 'GET', url: `/checkout/${id}` });
      const csrf = csrfOf(page.body);
      const cookie = cookieOf(page);
      const qrPage = await t.app.inject({ method: 'GET', url: `/checkout/${id}?method=4`, headers: { cookie } });
      const qr = /\/checkout\/[0-9a-f]+\/qr\/[^"?]+/.exec(qrPage.body)![0];
      assert.ok(csrf.length > 20);
      const forms: [string, string][] = [
        [`/checkout/${id}/pay`, 'method=5&number=4000000000003220&expiry=12%2F30&securityCode=123&holder=A+B'],
        [`/checkout/${id}/3ds`, 'code=1234'],
        [qr, 'outcome=approve'],
      ];
      const before = await stateOf(t, id);
      let refused = 0;
      for (const [url, fields] of forms) {
        for (const [token, withCookie] of [
          [null, true],
          [csrf, false],
          ['forged', true],
          [csrf.slice(0, -2) + '00', true],
        ] as const) {
          const res = await t.app.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...(withCookie ? { cookie } : {}) },
            payload: token === null ? fields : `${fields}&csrf=${encodeURIComponent(token)}`,
          });
          assert.equal(res.statusCode, 403, `${url} token=${token} cookie=${withCookie}: ${res.statusCode}`);
          assert.match(String(res.headers['content-type']), /^text\/html/);
          refused++;
        }
      }
      assert.equal(refused, 12);
      assert.equal(await stateOf(t, id), before, 'no refused form changed the payment');
      // With both, the same form goes through.
      const ok = await t.app.inject({
        method: 'POST',
        url: forms[0]![0],
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        payload: `${forms[0]![1]}&csrf=${encodeURIComponent(csrf)}`,
      });
      assert.equal(ok.statusCode, 303);
    });

    it('keeps card numbers and secrets out of the request log and the log lines, whatever shape a merchant sends them in', async () => {
      const card = '5555555555554444';
      const encoded = [...card].map((d) => `%3${d}`).join('');
      const secret = 'hunter2-plain-secret';
      const json = JSON.stringify({
        amount: { currency: 'GEL', total: '1.00' },
        returnurl: 'https://shop.example/r',
        description: `card ${card}`,
        client_secret: secret,
      });
      const sent = [
        // A JSON body posted as a form (PHP's curl does it without a Content-Type): the whole document is one key.
        await t.app.inject({
          method: 'POST',
          url: '/v1/gateway/payments',
          headers: a.headers({ 'content-type': 'application/x-www-form-urlencoded' }),
          payload: json,
        }),
        await t.app.inject({
          method: 'POST',
          url: '/v1/gateway/access-token',
          headers: { apikey: a.credentials.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
          payload: JSON.stringify({ client_id: a.credentials.clientId, client_secret: a.credentials.clientSecret }),
        }),
        await a.post('/v1/gateway/payments', {
          [`note ${card}`]: 1,
          [`{"client_secret":"${secret}"}`]: '',
          amount: { currency: 'GEL', total: '1.00' },
        }),
        await a.get(`/v1/gateway/payments/${card}`),
        await a.get(`/v1/gateway/payments?description=${card}&client_secret=${secret}&x=${encoded}`),
        await a.get(`/v1/gateway/payments/${encoded}?q=${card.replace(/(\d{4})/g, '$1-')}`),
        await t.app.inject({ method: 'GET', url: `/checkout/${card}?number=${card}&clientSecret=${secret}` }),
      ];
      for (const res of sent) assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
      await t.app.requestLog.flush();
      const { rows } = await t.gw.services.db.query<{ path: string; request_body: string | null }>(
        'SELECT path, request_body FROM merchant_requests WHERE client_id = $1',
        [a.credentials.clientId],
      );
      const stored = JSON.stringify(rows);
      const paths = rows.map((r) => r.path);
      assert.ok(
        paths.some((p) => p.includes('••••4444')) && rows.some((r) => r.request_body?.includes('[redacted]')),
        `the calls were logged, redacted: ${stored.slice(0, 2_000)}`,
      );
      const logText = logs.join('');
      // The request log holds no card number at all; the log lines (whose timings' digits can read
      // as one) not the one sent, in any of its forms.
      for (const [where, text] of [
        ['request log', stored],
        ['log lines', logText],
      ] as const) {
        for (const form of [text, decodeURIComponent(text.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'))]) {
          if (where === 'request log') assert.deepEqual(cardNumbersIn(form), [], `a card number in the ${where}`);
          assert.ok(!form.replace(/[ -]/g, '').includes(card), `the card number in the ${where}`);
          assert.ok(!form.includes(secret) && !form.includes(a.credentials.clientSecret), `a secret in the ${where}`);
        }
      }
    });

    it('keeps card numbers and security codes out of every table and log line after card payments on every path', async () => {
      // The checkout form (frictionless, 3-D Secure, declined), the sandbox simulate endpoint, a
      // saved card's charge: all with a distinctive security code.
      const pay = async (card: string, over: Record<string, unknown> = {}) => {
        const id = (await a.createPayment(basicPayment(over))).json().payId as string;
        const page = await t.app.inject({ method: 'GET', url: `/checkout/${id}` });
        return {
          id,
          res: await t.app.inject({
            method: 'POST',
            url: `/checkout/${id}/pay`,
            headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(page) },
            payload: `method=5&csrf=${encodeURIComponent(csrfOf(page.body))}&number=${card}&expiry=11%2F31&securityCode=739&holder=CARD+HOLDER`,
          }),
        };
      };
      assert.equal((await pay('5555555555554444', { saveCard: true })).res.statusCode, 303);
      assert.equal((await pay('4000000000000002')).res.statusCode, 303);
      const challenged = await pay('4000000000003220');
      assert.equal(challenged.res.statusCode, 303);
      await createPaid(t, a, {}, '4000000000000838');
      const saved = await createPaid(t, a, { saveCard: true });
      const recId = (await a.getPayment(saved)).json().recurringCard.recId as string;
      assert.equal(
        (await a.post('/v1/gateway/payments/execution', { recId, money: { amount: '2.00', currency: 'GEL' } }))
          .statusCode,
        200,
      );
      const logText = logs.join('');
      assert.ok(logText.length > 10_000, `${logText.length} bytes of trace logs`);
      const scanned = await checkNoCardData(t.gw.services.db, logText);
      assert.ok(
        !/\b739\b/.test(logText.replace(/"(reqId|requestId|pay_id|payId|time|pid|transactionId|rrn)":"?[^,"]*"?/g, '')),
        'the security code appears in the logs',
      );
      console.log(
        `[card data ${backend}] ${scanned.rows} rows in every table and ${scanned.logBytes} bytes of trace logs scanned: no card number, no security code`,
      );
    });
  });
}

describe('production mode', () => {
  let t: TestGateway;
  let m: MerchantClient;
  before(async () => {
    t = await startTestGateway(BACKENDS[0]!, {
      KARIBCHE_MODE: 'production',
      KARIBCHE_PUBLIC_URL: 'https://pay.example',
      KARIBCHE_ACQUIRER_MODULE: TEST_ACQUIRER_MODULE,
    });
    m = await MerchantClient.create(t);
  });
  after(() => t.close());

  it('refuses to start without a real acquirer connector: production never falls back to the simulator', async () => {
    const db = await openTestDb(BACKENDS[0]!);
    try {
      const config = loadConfig({
        KARIBCHE_MODE: 'production',
        KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN,
        KARIBCHE_DATA_DIR: db.dataDir,
        LOG_LEVEL: 'silent',
      });
      await assert.rejects(
        createGateway(config, { db: db.db, background: false, log: createLogger('silent') }),
        (err) => err instanceof ConfigError && /KARIBCHE_ACQUIRER_MODULE/.test(err.message),
      );
      const broken = loadConfig({
        KARIBCHE_MODE: 'production',
        KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN,
        KARIBCHE_DATA_DIR: db.dataDir,
        LOG_LEVEL: 'silent',
        KARIBCHE_ACQUIRER_MODULE: '/nonexistent/connector.mjs',
      });
      await assert.rejects(
        createGateway(broken, { db: db.db, background: false, log: createLogger('silent') }),
        (err) => err instanceof ConfigError && /cannot load/.test(err.message),
      );
      // Nor the simulator handed in by code: production refuses it as its acquirer.
      const withConnector = loadConfig({
        KARIBCHE_MODE: 'production',
        KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN,
        KARIBCHE_DATA_DIR: db.dataDir,
        LOG_LEVEL: 'silent',
        KARIBCHE_ACQUIRER_MODULE: TEST_ACQUIRER_MODULE,
      });
      const simulator = new SimulatorAcquirer(db.db, new Clock(), 0);
      await assert.rejects(
        createGateway(config, { db: db.db, background: false, log: createLogger('silent'), acquirer: simulator }),
        (err) => err instanceof ConfigError && /refuses the sandbox simulator/.test(err.message),
      );
      await assert.rejects(
        createGateway(withConnector, {
          db: db.db,
          background: false,
          log: createLogger('silent'),
          acquirer: simulator,
        }),
        (err) => err instanceof ConfigError && /refuses the sandbox simulator/.test(err.message),
      );
    } finally {
      await db.drop();
    }
  });

  it('charges through the configured connector, never the simulator: a sandbox decline card is whatever the real acquirer says', async () => {
    const { calls } = (await import(TEST_ACQUIRER_MODULE)) as {
      calls: { op: string; mode: string; last4: string | null }[];
    };
    const before = calls.length;
    // 4000 0000 0000 0002 is declined by the sandbox simulator; the connector here approves everything.
    const id = (await m.createPayment(basicPayment())).json().payId as string;
    const page = await t.app.inject({ method: 'GET', url: `/checkout/${id}` });
    assert.doesNotMatch(page.body, /4111 1111|Sandbox/i, 'no sandbox hints in production');
    const paid = await t.app.inject({
      method: 'POST',
      url: `/checkout/${id}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(page) },
      payload: `method=5&csrf=${encodeURIComponent(csrfOf(page.body))}&number=4000000000000002&expiry=11%2F31&securityCode=123&holder=CARD+HOLDER`,
    });
    assert.equal(paid.statusCode, 303);
    assert.equal((await m.getPayment(id)).json().status, 'Succeeded');
    assert.deepEqual(
      calls.slice(before).map((c) => [c.op, c.mode, c.last4]),
      [['authorise', 'production', '0002']],
    );
    const { rows } = await t.gw.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sim_authorisations');
    assert.equal(rows[0]!.n, 0, 'the simulator kept no books: it was never asked');
  });

  it('has no sandbox endpoints, even with the admin token', async () => {
    for (const [method, path] of SANDBOX_ENDPOINTS) {
      const res = await t.admin(
        method as 'GET',
        path.replace(':payId', 'a'.repeat(32)),
        method === 'GET' ? undefined : {},
      );
      assert.equal(res.statusCode, 404, `${method} ${path}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    }
  });

  it('keeps the operator API behind the admin token', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/admin/v1/merchants' })).statusCode, 401);
    assert.equal((await t.admin('GET', '/admin/v1/merchants')).statusCode, 200);
  });

  it('serves the checkout with HSTS, a CSP without inline script, frame denial and a Secure, HttpOnly, SameSite=Strict cookie', async () => {
    const id = (await m.createPayment(basicPayment())).json().payId as string;
    const page = await t.app.inject({ method: 'GET', url: `/checkout/${id}` });
    assert.equal(page.statusCode, 200);
    const h = page.headers;
    assert.match(String(h['strict-transport-security']), /max-age=\d{7,}/);
    const csp = String(h['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /upgrade-insecure-requests/);
    assert.equal(h['x-frame-options'], 'DENY');
    assert.equal(h['x-content-type-options'], 'nosniff');
    assert.match(String(h['set-cookie']), /; Path=\/checkout; HttpOnly; Secure; SameSite=Strict$/);
    assert.doesNotMatch(page.body, /<script>|<script [^>]*>[^<]|\son[a-z]+=/i, 'no inline script or handler');
  });
});
