// Hostile input against every endpoint of the merchant, operator, sandbox and checkout APIs and the
// dashboard (fast-check): odd path segments, query strings, headers, credentials and bodies (mutated
// valid bodies, arbitrary JSON, arbitrary text, wrong content types, prototype keys, oversized).
// Never a 5xx; every API error is documented problem JSON (its systemCode in docs/ERRORS.md), every
// checkout and dashboard error an HTML page; and a rejected request writes nothing (a fingerprint of
// every table).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import fc from 'fast-check';
import { BACKENDS } from '../../src/testing/databases.ts';
import { ADMIN_TOKEN, accessToken } from '../../src/testing/harness.ts';
import { assertDocumentedRejection, openArena, type Arena } from '../../src/testing/hostile/arena.ts';
import { ENDPOINTS } from '../../src/testing/hostile/endpoints.ts';

const RUNS = Number(process.env.KARIBCHE_HOSTILE_RUNS ?? 5_200);

const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '..',
    '../../etc/passwd',
    '%00',
    '\u0000',
    "' OR 1=1 --",
    '"; DROP TABLE payments; --',
    '<script>alert(1)</script>',
    '__proto__',
    'constructor',
    'NaN',
    '-1',
    '1e309',
    '９',
    '𝟘',
    'null',
    'x'.repeat(5_000),
  ),
);
const wrongValue = fc.oneof(
  hostileText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileText, { maxLength: 3 }),
  fc.dictionary(hostileText, hostileText, { maxKeys: 3 }),
);

interface Case {
  endpoint: number;
  segments: { kind: 'target' | 'hostile'; pick: number; text: string }[];
  query: Record<string, string>;
  body:
    | { kind: 'mutated'; drops: string[]; sets: [string, unknown][] }
    | { kind: 'json'; value: unknown }
    | { kind: 'text'; text: string }
    | { kind: 'proto' }
    | { kind: 'huge' }
    | { kind: 'none' };
  contentType: string | null;
  auth: 'valid' | 'missing' | 'garbage' | 'other';
  idempotencyKey: string | null;
  csrf: 'valid' | 'garbage' | 'missing';
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  endpoint: fc.nat({ max: ENDPOINTS.length - 1 }),
  segments: fc.array(
    fc.record({ kind: fc.constantFrom('target', 'target', 'hostile'), pick: fc.nat({ max: 9 }), text: hostileText }),
    { minLength: 2, maxLength: 2 },
  ),
  query: fc.dictionary(fc.constantFrom('lang', 'method', 'limit', 'offset', 'status', 'x', '__proto__'), hostileText, {
    maxKeys: 2,
  }),
  body: fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('mutated' as const),
        drops: fc.array(fc.string({ maxLength: 12 }), { maxLength: 2 }),
        sets: fc.array(
          fc.tuple(
            fc.constantFrom(
              'amount',
              'returnurl',
              'extra',
              'extra2',
              'recId',
              'name',
              'methods',
              'currencies',
              'advanceSeconds',
              'card',
              'otp',
              'number',
              'expiry',
              'securityCode',
              'client_id',
              'url',
              'callbackUrlPrefixes',
              'total',
              'initiator',
              'money',
              'code',
              'outcome',
            ),
            wrongValue,
          ),
          { maxLength: 3 },
        ),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 3 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('text' as const), text: fc.string({ maxLength: 200 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'proto' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'huge' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  ),
  contentType: fc.constantFrom(
    null,
    'application/json',
    'application/json',
    'application/x-www-form-urlencoded',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'application/xml',
  ),
  auth: fc.constantFrom('valid', 'valid', 'valid', 'missing', 'garbage', 'other'),
  idempotencyKey: fc.oneof(fc.constant(null), fc.constant(null), fc.string({ maxLength: 300 })),
  csrf: fc.constantFrom('valid', 'garbage', 'missing'),
});

for (const backend of BACKENDS) {
  describe(`hostile input on every endpoint (property) [${backend}]`, () => {
    let arena: Arena;
    before(async () => {
      arena = await openArena(backend);
    });
    after(() => arena.t.close());

    function request(c: Case): InjectOptions {
      const e = ENDPOINTS[c.endpoint]!;
      const { m, otherToken, targets, csrf } = arena;
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
        headers.authorization =
          c.auth === 'valid'
            ? `Bearer ${m.token}`
            : c.auth === 'other'
              ? `Bearer ${otherToken}`
              : 'Bearer eyJhbGciOiJub25lIn0.e30.';
      }
      if (e.auth === 'admin' && c.auth !== 'missing')
        headers.authorization = c.auth === 'valid' ? `Bearer ${ADMIN_TOKEN}` : 'Bearer not-the-admin-token';
      if (e.auth === 'none' && e.path === '/v1/gateway/access-token' && c.auth !== 'missing')
        headers.apikey = c.auth === 'garbage' ? 'kbk_garbage' : m.credentials.apiKey;
      if (c.idempotencyKey !== null && /^[\x20-\x7e]*$/.test(c.idempotencyKey))
        headers['idempotency-key'] = c.idempotencyKey;
      let payload: string | undefined;
      if (c.body.kind === 'mutated' && e.body) {
        const body: Record<string, unknown> = JSON.parse(
          JSON.stringify(e.body).replace('":recId"', JSON.stringify(targets.recId[0])),
        );
        for (const d of c.body.drops) delete body[d];
        for (const [k, v] of c.body.sets) body[k] = v;
        if ((e.path.startsWith('/checkout/') || e.auth === 'dashboard') && c.csrf !== 'missing')
          Object.assign(body, c.csrf === 'valid' ? arena.withCsrf(e, {}) : { csrf: 'forged' });
        payload = e.form
          ? new URLSearchParams(
              Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
            ).toString()
          : JSON.stringify(body);
      } else if (c.body.kind === 'json') payload = JSON.stringify(c.body.value);
      else if (c.body.kind === 'text') payload = c.body.text;
      else if (c.body.kind === 'proto')
        payload = '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"amount":{"__proto__":{"total":1}}}';
      else if (c.body.kind === 'huge') payload = JSON.stringify({ description: 'x'.repeat(1_100_000) });
      if (e.path.startsWith('/checkout/') && c.csrf === 'valid') headers.cookie = csrf.cookie;
      if (e.auth === 'dashboard' && c.auth !== 'missing')
        headers.cookie = c.auth === 'garbage' ? 'kb_dash=garbage' : arena.authHeaders(e).cookie!;
      if (payload !== undefined && e.method !== 'GET')
        headers['content-type'] = c.contentType ?? (e.form ? 'application/x-www-form-urlencoded' : 'application/json');
      return {
        method: e.method,
        url: qs ? `${url}?${qs}` : url,
        headers,
        payload: e.method === 'GET' ? undefined : payload,
      };
    }

    it(`never a 5xx, always the documented error shape, nothing written on a rejection (${RUNS} cases over ${ENDPOINTS.length} endpoints)`, {
      timeout: 600_000,
    }, async () => {
      let before = await arena.fingerprint();
      const seen = {
        cases: 0,
        accepted: 0,
        rejected: 0,
        byStatus: {} as Record<number, number>,
        endpoints: new Set<number>(),
      };
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          if (seen.cases++ % 250 === 0) arena.m.token = await accessToken(arena.t.app, arena.m.credentials); // outlive clock jumps
          const req = request(c);
          const res = await arena.t.app.inject(req);
          const what = `${req.method} ${String(req.url).slice(0, 120)} → ${res.statusCode}: ${res.body.slice(0, 300)}`;
          seen.byStatus[res.statusCode] = (seen.byStatus[res.statusCode] ?? 0) + 1;
          seen.endpoints.add(c.endpoint);
          assert.ok(res.statusCode < 500, what);
          const after = await arena.fingerprint();
          if (res.statusCode >= 400) {
            seen.rejected++;
            assert.equal(after, before, `a rejected request changed the database: ${what}`);
            assertDocumentedRejection(String(req.url), res, what);
          } else seen.accepted++;
          before = after;
        }),
        { numRuns: RUNS },
      );
      assert.equal(seen.endpoints.size, ENDPOINTS.length, 'every endpoint was exercised');
      assert.ok(seen.rejected > RUNS / 2, `${seen.rejected} rejections`);
      console.log(
        `[hostile input ${backend}] ${seen.cases} cases over ${ENDPOINTS.length} endpoints: ${seen.rejected} rejected, ${seen.accepted} accepted, statuses ${JSON.stringify(seen.byStatus)}, 0 failures`,
      );
    });

    it('the fingerprint sees a write (it is reused only while no WAL was written)', async () => {
      const before = await arena.fingerprint();
      assert.equal(await arena.fingerprint(), before);
      await arena.t.gw.services.db.query(
        `UPDATE payments SET extra = 'fingerprinted' WHERE pay_id = (SELECT pay_id FROM payments ORDER BY pay_id LIMIT 1)`,
      );
      assert.notEqual(await arena.fingerprint(), before);
    });
  });
}
