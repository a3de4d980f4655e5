// Hostile input against every endpoint of the merchant, operator, sandbox and checkout APIs
// (fast-check): odd path segments, query strings, headers, credentials and bodies (mutated valid
// bodies, arbitrary JSON, arbitrary text, wrong content types, prototype keys, oversized). Never a
// 5xx; every API error is documented problem JSON (its systemCode in docs/ERRORS.md), every checkout
// error an HTML page; and a rejected request writes nothing (a fingerprint of every table).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import fc from 'fast-check';
import { isCheckoutPage } from '../checkout/routes.ts';
import { BACKENDS } from '../testing/databases.ts';
import { ADMIN_TOKEN, MerchantClient, SPLIT_IBAN, accessToken, basicPayment, createMerchant, createPaid, startTestGateway, type TestGateway } from '../testing/harness.ts';

const RUNS = Number(process.env.KARIBCHE_HOSTILE_RUNS ?? 5_200);
const DOCUMENTED = fs.readFileSync('docs/ERRORS.md', 'utf8');

type Auth = 'merchant' | 'admin' | 'none';
interface Endpoint {
  method: InjectOptions['method'];
  /** With :payId, :recId, :clientId, :token segments filled from the target pools or hostile text. */
  path: string;
  auth: Auth;
  /** A valid body to mutate. */
  body?: Record<string, unknown>;
  /** Form-encoded (checkout, access token) rather than JSON. */
  form?: boolean;
}

const ENDPOINTS: Endpoint[] = [
  { method: 'POST', path: '/v1/gateway/access-token', auth: 'none', form: true, body: { client_id: '', client_secret: '' } },
  { method: 'POST', path: '/v1/gateway/payments', auth: 'merchant', body: basicPayment({ extra: SPLIT_IBAN, extra2: '1', saveCard: true, methods: [5], installmentProducts: [{ name: 'x', price: 10, quantity: 1 }] }) },
  { method: 'GET', path: '/v1/gateway/payments/:payId', auth: 'merchant' },
  { method: 'POST', path: '/v1/gateway/payments/:payId/cancel', auth: 'merchant', body: { amount: '1.00', extra: SPLIT_IBAN, extra2: '0.5' } },
  { method: 'POST', path: '/v1/gateway/payments/:payId/completion', auth: 'merchant', body: { amount: '1.00' } },
  { method: 'POST', path: '/v1/gateway/payments/execution', auth: 'merchant', body: { recId: ':recId', money: { amount: '1.00', currency: 'GEL' }, initiator: 'merchant' } },
  { method: 'POST', path: '/v1/gateway/payments/:recId/delete', auth: 'merchant' },
  { method: 'DELETE', path: '/v1/gateway/payments/:recId', auth: 'merchant' },
  { method: 'GET', path: '/v1/gateway/payments/:payId/callbacks', auth: 'merchant' },
  { method: 'POST', path: '/v1/gateway/payments/:payId/callbacks/redeliver', auth: 'merchant', body: {} },
  { method: 'POST', path: '/admin/v1/merchants', auth: 'admin', body: { name: 'Fuzz', currencies: ['GEL'], methods: [5], callbackUrlPrefixes: ['https://x.example/'] } },
  { method: 'GET', path: '/admin/v1/merchants', auth: 'admin' },
  { method: 'GET', path: '/admin/v1/merchants/:clientId', auth: 'admin' },
  { method: 'PATCH', path: '/admin/v1/merchants/:clientId', auth: 'admin', body: { name: 'Renamed', testMode: true, brandColor: '#123456' } },
  { method: 'POST', path: '/admin/v1/merchants/:clientId/api-keys', auth: 'admin' },
  { method: 'POST', path: '/admin/v1/merchants/:clientId/client-secret', auth: 'admin' },
  { method: 'POST', path: '/admin/v1/merchants/:clientId/callback-secret', auth: 'admin' },
  { method: 'POST', path: '/admin/v1/signing-keys', auth: 'admin' },
  { method: 'GET', path: '/sandbox/v1/clock', auth: 'admin' },
  { method: 'POST', path: '/sandbox/v1/clock', auth: 'admin', body: { advanceSeconds: 60 } },
  { method: 'POST', path: '/sandbox/v1/payments/:payId/simulate', auth: 'admin', body: { method: 5, card: '4000000000000002', otp: '1234' } },
  { method: 'POST', path: '/sandbox/v1/callbacks/test', auth: 'admin', body: { url: 'http://127.0.0.1:9/x' } },
  { method: 'GET', path: '/checkout/:payId', auth: 'none' },
  { method: 'GET', path: '/checkout/:payId/brand.css', auth: 'none' },
  { method: 'GET', path: '/checkout/:payId/status', auth: 'none' },
  { method: 'POST', path: '/checkout/:payId/pay', auth: 'none', form: true, body: { method: '5', number: '4000000000000002', expiry: '12/30', securityCode: '123', holder: 'A B' } },
  { method: 'GET', path: '/checkout/:payId/3ds', auth: 'none' },
  { method: 'POST', path: '/checkout/:payId/3ds', auth: 'none', form: true, body: { code: '0000' } },
  { method: 'GET', path: '/checkout/:payId/qr/:token', auth: 'none' },
  { method: 'POST', path: '/checkout/:payId/qr/:token', auth: 'none', form: true, body: { outcome: 'decline' } },
  { method: 'GET', path: '/checkout/assets/checkout.js', auth: 'none' },
];

// Rejections that by design leave a trace: the brute-force counter of failed credentials.
const NOT_FINGERPRINTED = new Set(['auth_failures']);

const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '..', '../../etc/passwd', '%00', '\u0000', "' OR 1=1 --", '"; DROP TABLE payments; --', '<script>alert(1)</script>', '__proto__', 'constructor', 'NaN', '-1', '1e309', '９', '𝟘', 'null', 'x'.repeat(5_000)),
);
const wrongValue = fc.oneof(hostileText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(hostileText, { maxLength: 3 }), fc.dictionary(hostileText, hostileText, { maxKeys: 3 }));

interface Case {
  endpoint: number;
  segments: { kind: 'target' | 'hostile'; pick: number; text: string }[];
  query: Record<string, string>;
  body: { kind: 'mutated'; drops: string[]; sets: [string, unknown][] } | { kind: 'json'; value: unknown } | { kind: 'text'; text: string } | { kind: 'proto' } | { kind: 'huge' } | { kind: 'none' };
  contentType: string | null;
  auth: 'valid' | 'missing' | 'garbage' | 'other';
  idempotencyKey: string | null;
  csrf: 'valid' | 'garbage' | 'missing';
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  endpoint: fc.nat({ max: ENDPOINTS.length - 1 }),
  segments: fc.array(fc.record({ kind: fc.constantFrom('target', 'target', 'hostile'), pick: fc.nat({ max: 9 }), text: hostileText }), { minLength: 2, maxLength: 2 }),
  query: fc.dictionary(fc.constantFrom('lang', 'method', 'limit', 'offset', 'status', 'x', '__proto__'), hostileText, { maxKeys: 2 }),
  body: fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('mutated' as const), drops: fc.array(fc.string({ maxLength: 12 }), { maxLength: 2 }), sets: fc.array(fc.tuple(fc.constantFrom('amount', 'returnurl', 'extra', 'extra2', 'recId', 'name', 'methods', 'currencies', 'advanceSeconds', 'card', 'otp', 'number', 'expiry', 'securityCode', 'client_id', 'url', 'callbackUrlPrefixes', 'total', 'initiator', 'money', 'code', 'outcome'), wrongValue), { maxLength: 3 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 3 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('text' as const), text: fc.string({ maxLength: 200 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'proto' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'huge' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  ),
  contentType: fc.constantFrom(null, 'application/json', 'application/json', 'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/xml'),
  auth: fc.constantFrom('valid', 'valid', 'valid', 'missing', 'garbage', 'other'),
  idempotencyKey: fc.oneof(fc.constant(null), fc.constant(null), fc.string({ maxLength: 300 })),
  csrf: fc.constantFrom('valid', 'garbage', 'missing'),
});

for (const backend of BACKENDS) {
  describe(`hostile input on every endpoint (property) [${backend}]`, () => {
    let t: TestGateway;
    let m: MerchantClient;
    let otherToken: string;
    const targets: Record<'payId' | 'recId' | 'clientId' | 'token', string[]> = { payId: [], recId: [], clientId: [], token: [] };
    let csrf = { cookie: '', token: '' };
    let fingerprintSql = '';

    before(async () => {
      t = await startTestGateway(backend, { KARIBCHE_CHECKOUT_ATTEMPTS_PER_MINUTE: '1000000', KARIBCHE_TOKEN_REQUESTS_PER_MINUTE: '1000000', KARIBCHE_AUTH_FAILURE_LIMIT: '1000000' });
      m = await MerchantClient.create(t);
      const other = await createMerchant(t);
      otherToken = await accessToken(t.app, other.credentials);
      // Targets: a paid payment, a pre-authorised one, an open one, a saved card, another
      // merchant's payment, the merchants themselves, a QR token.
      const paid = await createPaid(t, m, { saveCard: true });
      const held = await createPaid(t, m, { preAuth: true });
      const open = (await m.createPayment(basicPayment())).json().payId as string;
      const foreign = (await new MerchantClient(t.app, other.credentials, otherToken).createPayment(basicPayment())).json().payId as string;
      targets.payId.push(paid, held, open, foreign);
      targets.recId.push(((await m.getPayment(paid)).json().recurringCard?.recId as string) ?? paid);
      // Operator calls aim at the other merchant: rotating the fuzzing merchant's secret would end its session.
      targets.clientId.push(other.credentials.clientId);
      const page = await t.app.inject({ method: 'GET', url: `/checkout/${open}` });
      csrf = { cookie: String(page.headers['set-cookie']).split(';')[0]!, token: /name="csrf" value="([^"]+)"/.exec(page.body)![1]! };
      const qrPage = await t.app.inject({ method: 'GET', url: `/checkout/${open}?method=4`, headers: { cookie: csrf.cookie } });
      targets.token.push(/\/qr\/([^"/?]+)/.exec(qrPage.body)![1]!);
      const { rows } = await t.gw.services.db.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`);
      fingerprintSql = `SELECT ${rows
        .filter((r) => !NOT_FINGERPRINTED.has(r.table_name))
        .map((r) => `(SELECT count(*) || ':' || coalesce(md5(string_agg(md5(x::text), '' ORDER BY md5(x::text))), '') FROM "${r.table_name}" x)`)
        .join(` || '|' || `)} AS f`;
    });
    after(() => t.close());

    const fingerprint = async () => (await t.gw.services.db.query<{ f: string }>(fingerprintSql)).rows[0]!.f;

    function request(c: Case): InjectOptions {
      const e = ENDPOINTS[c.endpoint]!;
      let seg = 0;
      const fill = (name: 'payId' | 'recId' | 'clientId' | 'token') => {
        const s = c.segments[seg++ % c.segments.length]!;
        return s.kind === 'target' ? targets[name][s.pick % targets[name].length]! : s.text;
      };
      const url = e.path.replace(/:(payId|recId|clientId|token)/g, (_, name) => encodeURIComponent(fill(name)));
      const qs = new URLSearchParams(c.query).toString();
      const headers: Record<string, string> = {};
      if (e.auth === 'merchant' && c.auth !== 'missing') {
        headers.apikey = c.auth === 'garbage' ? 'kbk_garbage' : m.credentials.apiKey;
        headers.authorization = c.auth === 'valid' ? `Bearer ${m.token}` : c.auth === 'other' ? `Bearer ${otherToken}` : 'Bearer eyJhbGciOiJub25lIn0.e30.';
      }
      if (e.auth === 'admin' && c.auth !== 'missing') headers.authorization = c.auth === 'valid' ? `Bearer ${ADMIN_TOKEN}` : 'Bearer not-the-admin-token';
      if (e.auth === 'none' && e.path === '/v1/gateway/access-token' && c.auth !== 'missing') headers.apikey = c.auth === 'garbage' ? 'kbk_garbage' : m.credentials.apiKey;
      if (c.idempotencyKey !== null && /^[\x20-\x7e]*$/.test(c.idempotencyKey)) headers['idempotency-key'] = c.idempotencyKey;
      let payload: string | undefined;
      if (c.body.kind === 'mutated' && e.body) {
        const body: Record<string, unknown> = JSON.parse(JSON.stringify(e.body).replace('":recId"', JSON.stringify(targets.recId[0])));
        for (const d of c.body.drops) delete body[d];
        for (const [k, v] of c.body.sets) body[k] = v;
        if (e.path.startsWith('/checkout/') && c.csrf !== 'missing') body.csrf = c.csrf === 'valid' ? csrf.token : 'forged';
        payload = e.form ? new URLSearchParams(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString() : JSON.stringify(body);
      } else if (c.body.kind === 'json') payload = JSON.stringify(c.body.value);
      else if (c.body.kind === 'text') payload = c.body.text;
      else if (c.body.kind === 'proto') payload = '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"amount":{"__proto__":{"total":1}}}';
      else if (c.body.kind === 'huge') payload = JSON.stringify({ description: 'x'.repeat(1_100_000) });
      if (e.path.startsWith('/checkout/') && c.csrf === 'valid') headers.cookie = csrf.cookie;
      if (payload !== undefined && e.method !== 'GET') headers['content-type'] = c.contentType ?? (e.form ? 'application/x-www-form-urlencoded' : 'application/json');
      return { method: e.method, url: qs ? `${url}?${qs}` : url, headers, payload: e.method === 'GET' ? undefined : payload };
    }

    it(`never a 5xx, always the documented error shape, nothing written on a rejection (${RUNS} cases over ${ENDPOINTS.length} endpoints)`, { timeout: 600_000 }, async () => {
      let before = await fingerprint();
      const seen = { cases: 0, accepted: 0, rejected: 0, byStatus: {} as Record<number, number>, endpoints: new Set<number>() };
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          if (seen.cases++ % 250 === 0) m.token = await accessToken(t.app, m.credentials); // outlive clock jumps
          const req = request(c);
          const res = await t.app.inject(req);
          const what = `${req.method} ${String(req.url).slice(0, 120)} → ${res.statusCode}: ${res.body.slice(0, 300)}`;
          seen.byStatus[res.statusCode] = (seen.byStatus[res.statusCode] ?? 0) + 1;
          seen.endpoints.add(c.endpoint);
          assert.ok(res.statusCode < 500, what);
          const after = await fingerprint();
          if (res.statusCode >= 400) {
            seen.rejected++;
            assert.equal(after, before, `a rejected request changed the database: ${what}`);
            const type = String(res.headers['content-type']);
            if (isCheckoutPage(new URL(String(req.url), 'http://x').pathname)) assert.match(type, /^text\/html/, what);
            else {
              assert.match(type, /^application\/problem\+json/, what);
              const body = res.json();
              assert.equal(body.status, String(res.statusCode), what);
              assert.ok(DOCUMENTED.includes(`\`${body.systemCode}\``), `undocumented systemCode ${body.systemCode}: ${what}`);
              for (const k of ['type', 'title', 'detail']) assert.equal(typeof body[k], 'string', what);
            }
          } else seen.accepted++;
          before = after;
        }),
        { numRuns: RUNS },
      );
      assert.equal(seen.endpoints.size, ENDPOINTS.length, 'every endpoint was exercised');
      assert.ok(seen.rejected > RUNS / 2, `${seen.rejected} rejections`);
      console.log(`[hostile input ${backend}] ${seen.cases} cases over ${ENDPOINTS.length} endpoints: ${seen.rejected} rejected, ${seen.accepted} accepted, statuses ${JSON.stringify(seen.byStatus)}, 0 failures`);
    });
  });
}
