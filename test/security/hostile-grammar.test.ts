// Hostile input by grammar (src/testing/hostile/grammar.ts) against every endpoint, with valid
// credentials and valid path targets so the attack reaches the body and query parsers: duplicate JSON
// keys, nesting to 10,000 levels, prototype keys, numbers in every JSON spelling, repeated form fields
// and query parameters, and strings with NUL, control, unpaired-surrogate, BOM, bidi, Georgian and
// emoji characters. Never a 5xx; a rejection is documented and changes nothing; what is accepted is
// what was meant (an inexact number is never rounded into an amount, a stored text is echoed exactly).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { BACKENDS } from '../../src/testing/databases.ts';
import {
  assertCleanEcho,
  assertDocumentedRejection,
  openArena,
  type Arena,
  type Target,
} from '../../src/testing/hostile/arena.ts';
import { cardNumbersIn } from '../../src/payments/card.ts';
import { ENDPOINTS, endpointKey, servedRoutes, type Endpoint } from '../../src/testing/hostile/endpoints.ts';
import {
  formKeyArb,
  formValueArb,
  hostileStrings,
  mutationArb,
  numberSpellings,
  renderForm,
  renderJson,
  type Mutation,
} from '../../src/testing/hostile/grammar.ts';
import { accessToken, basicPayment } from '../../src/testing/harness.ts';

const RUNS = Number(process.env.KARIBCHE_HOSTILE_GRAMMAR_RUNS ?? 2_000);
const SEED = Number(process.env.KARIBCHE_HOSTILE_SEED ?? 20261123);
const QUERY_KEYS = [
  'lang',
  'method',
  'sent',
  'state',
  'status',
  'limit',
  'cursor',
  'from',
  'to',
  'minAmount',
  'currency',
  'x',
];

const fieldsOf = (e: Endpoint) => {
  const own = Object.keys(e.body ?? {});
  const nested = Object.entries(e.body ?? {}).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).map((i) => `${k}.${i}`) : [],
  );
  return [...own, ...nested, 'unknownField'];
};

/** A form or query as the person who typed it reads it (percent-decoded where it decodes). */
const readable = (text: string) =>
  text.replace(/\+/g, ' ').replace(/(%[0-9a-f]{2})+/gi, (m) => {
    try {
      return decodeURIComponent(m);
    } catch {
      return m;
    }
  });

interface Case {
  endpoint: number;
  mutations: Mutation[];
  formRepeats: [string, string][];
  formOverrides: [string, string][];
  query: [string, string][];
}

const caseArb: fc.Arbitrary<Case> = fc.nat({ max: ENDPOINTS.length - 1 }).chain((endpoint) => {
  const fields = fieldsOf(ENDPOINTS[endpoint]!);
  return fc.record({
    endpoint: fc.constant(endpoint),
    mutations: fc.array(mutationArb(fields), { minLength: 1, maxLength: 3 }),
    formRepeats: fc.array(fc.tuple(formKeyArb(fields), formValueArb), { maxLength: 3 }),
    formOverrides: fc.array(fc.tuple(fc.constantFrom(...fields), formValueArb), { maxLength: 2 }),
    query: fc.array(
      fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.oneof(fc.constantFrom('en', 'ka', 'EN', '5'), formValueArb)),
      { maxLength: 4 },
    ),
  });
});

for (const backend of BACKENDS) {
  describe(`hostile input by grammar [${backend}]`, () => {
    let arena: Arena;
    before(async () => {
      arena = await openArena(backend);
    });
    after(() => arena.t.close());

    it('every route Fastify serves has a grammar', () => {
      const covered = new Set(ENDPOINTS.map((e) => endpointKey(e.method, e.path)));
      const missing = servedRoutes(arena.t.app.printRoutes({ commonPrefix: false })).filter((k) => !covered.has(k));
      assert.deepEqual(missing, [], 'routes without a hostile grammar: add them to src/testing/hostile/endpoints.ts');
    });

    it(`never a 5xx, documented rejections that change nothing, accepted input understood exactly (${RUNS} cases, seed ${SEED})`, {
      timeout: 900_000,
    }, async () => {
      const stats = { cases: 0, rejected: 0, accepted: 0, byStatus: {} as Record<number, number>, failure: '' };
      let before = await arena.fingerprint();
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          try {
            await runCase(c);
          } catch (err) {
            // fast-check shows the shrunk case; this is what the first failing one broke.
            if (!stats.failure)
              console.log(
                `[hostile grammar ${backend}] ${(stats.failure = String((err as Error).message)
                  .split('\n')[0]!
                  .slice(0, 600))}`,
              );
            before = await arena.fingerprint();
            throw err;
          }
        }),
        { numRuns: RUNS, seed: SEED },
      );
      async function runCase(c: Case) {
        if (stats.cases++ % 200 === 0) arena.m.token = await accessToken(arena.t.app, arena.m.credentials);
        const e = ENDPOINTS[c.endpoint]!;
        let pick = 0;
        const path = e.path.replace(/:(payId|recId|clientId|token)/g, (_, name: Target) =>
          encodeURIComponent(arena.targets[name][pick++ % arena.targets[name].length]!),
        );
        const query = c.query
          .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, '?'))}`)
          .join('&');
        const url = query ? `${path}?${query}` : path;
        const valid = JSON.parse(
          JSON.stringify(e.body ?? {})
            .replace('":recId"', JSON.stringify(arena.targets.recId[0]))
            .replace('":bystander"', JSON.stringify(arena.bystander)),
        );
        const headers: Record<string, string> = arena.authHeaders(e);
        let payload: string | undefined;
        if (e.method !== 'GET' && e.body) {
          if (e.form) {
            payload = renderForm(arena.withCsrf(e, valid), c.formRepeats, c.formOverrides);
            headers['content-type'] = 'application/x-www-form-urlencoded';
          } else {
            payload = renderJson(valid, c.mutations);
            headers['content-type'] = 'application/json';
          }
        }
        const logged = arena.logs.length;
        const res = await arena.t.app.inject({ method: e.method, url, headers, payload });
        const what = `${e.method} ${url.slice(0, 160)} ${String(payload).slice(0, 200)} → ${res.statusCode}: ${res.body.slice(0, 300)}`;
        stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
        assert.ok(res.statusCode < 500, what);
        // What is echoed and logged: no control character, no card number that was sent.
        const sent = cardNumbersIn(readable(`${url} ${payload ?? ''}`));
        assertCleanEcho(res.body, String(res.headers['content-type']), sent, arena.logs.slice(logged), what);
        const after = await arena.fingerprint();
        if (res.statusCode >= 400) {
          stats.rejected++;
          assert.equal(after, before, `a rejected request changed the database: ${what}`);
          assertDocumentedRejection(url, res, what);
        } else {
          stats.accepted++;
          if (e.path === '/v1/gateway/payments' && e.method === 'POST')
            await assertUnderstood(arena, c.mutations, payload!, res.json().payId, what);
        }
        before = after;
      }
      console.log(
        `[hostile grammar ${backend}] ${stats.cases} cases over ${ENDPOINTS.length} endpoints: ${stats.rejected} rejected, ${stats.accepted} accepted, statuses ${JSON.stringify(stats.byStatus)}, 0 failures`,
      );
    });
  });
}

/** An accepted payment means what its text says: no rounded amount, the order id echoed exactly. */
async function assertUnderstood(
  arena: Arena,
  mutations: readonly Mutation[],
  payload: string,
  payId: string,
  what: string,
) {
  const sent = JSON.parse(payload) as Record<string, unknown>;
  const at = (field: string) =>
    field
      .split('.')
      .reduce<unknown>(
        (v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
        sent,
      );
  for (const m of mutations) {
    // A field the request does not have is ignored whatever it holds, and a number a later
    // duplicate key replaced was never the value (the last key wins, as JSON.parse reads it).
    if (m.kind === 'number' && m.field !== 'unknownField' && typeof at(m.field) === 'number') {
      const spelling = numberSpellings.find((n) => n.text === m.text);
      assert.ok(spelling?.exact, `an inexact or invalid number was accepted: ${what}`);
    }
  }
  const got = (await arena.m.getPayment(payId)).json();
  if (typeof sent.merchantPaymentId === 'string')
    assert.equal(got.merchantPaymentId, sent.merchantPaymentId, `merchantPaymentId not echoed exactly: ${what}`);
}

describe('hostile grammar: the cases named in the issue, one by one', () => {
  for (const backend of BACKENDS) {
    let arena: Arena;
    before(async () => {
      arena = await openArena(backend);
    });
    after(() => arena.t.close());
    const create = (raw: string) => arena.m.post('/v1/gateway/payments', raw);

    it(`[${backend}] 10,000 levels of nesting is a 400, not a stack overflow`, async () => {
      for (const deep of ['['.repeat(10_000) + ']'.repeat(10_000), '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)]) {
        const res = await create(
          `{"amount":{"currency":"GEL","total":10},"returnurl":"https://shop.example/r","description":${deep}}`,
        );
        assert.equal(res.statusCode, 400, res.body);
      }
    });

    it(`[${backend}] a number that JavaScript cannot hold exactly is refused, never rounded`, async () => {
      for (const { text, exact } of numberSpellings) {
        const res = await create(`{"amount":{"currency":"GEL","total":${text}},"returnurl":"https://shop.example/r"}`);
        if (!exact) assert.equal(res.statusCode, 400, `${text}: ${res.body}`);
        else assert.notEqual(res.statusCode, 500, `${text}: ${res.body}`);
      }
    });

    it(`[${backend}] unpaired surrogates and a BOM are refused or echoed exactly`, async () => {
      for (const text of hostileStrings) {
        const res = await create(
          JSON.stringify({
            amount: { currency: 'GEL', total: 10 },
            returnurl: 'https://shop.example/r',
            merchantPaymentId: text.slice(0, 60),
          }),
        );
        assert.ok(res.statusCode < 500, `${JSON.stringify(text)}: ${res.body}`);
        if (res.statusCode === 200)
          assert.equal(
            (await arena.m.getPayment(res.json().payId)).json().merchantPaymentId,
            text.slice(0, 60),
            JSON.stringify(text),
          );
      }
    });

    it(`[${backend}] a return URL with CR/LF or non-ASCII never breaks the redirect`, async () => {
      for (const returnurl of [
        'https://shop.example/r\r\nSet-Cookie: a=1',
        'https://shop.example/შეკვეთა?x=ü',
        'https://shop.example/\u202e',
      ]) {
        const res = await create(
          JSON.stringify({ amount: { currency: 'GEL', total: 10 }, returnurl, skipInfoMessage: true }),
        );
        assert.ok(res.statusCode < 500, res.body);
        if (res.statusCode !== 200) continue;
        const payId = res.json().payId as string;
        await arena.t.admin('POST', `/sandbox/v1/payments/${payId}/simulate`, { card: '4111111111111111' });
        const page = await arena.t.app.inject({ method: 'GET', url: `/checkout/${payId}` });
        assert.ok(page.statusCode < 500, page.body);
        const location = String(page.headers.location ?? '');
        assert.doesNotMatch(
          location,
          /[\r\n]|[^\x21-\x7e]/,
          `Location is not plain ASCII: ${JSON.stringify(location)}`,
        );
      }
    });

    it(`[${backend}] repeated query parameters and form fields, and unknown checkout paths, answer pages`, async () => {
      const payId = arena.targets.payId[2]!;
      const page = await arena.t.app.inject({
        method: 'GET',
        url: `/checkout/${payId}?lang=en&lang=ka&method=5&method=4`,
      });
      assert.ok(page.statusCode < 500, page.body);
      const form = await arena.t.app.inject({
        method: 'POST',
        url: `/checkout/${payId}/pay`,
        headers: { cookie: arena.csrf.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `csrf=${arena.csrf.token}&method=5&method=4&number=4111111111111111&number=1`,
      });
      assert.ok(form.statusCode < 500 && /^text\/html/.test(String(form.headers['content-type'])), form.body);
      const deeper = await arena.t.app.inject({ method: 'GET', url: '/checkout/x/y/status' });
      assert.equal(deeper.statusCode, 404);
      assert.match(String(deeper.headers['content-type']), /^text\/html/);
    });

    it(`[${backend}] every checkout form echoes and logs no control character and no card number it was sent`, async () => {
      // A fresh payment with its own page (the arena's open one may be spent by now).
      const payId = (await arena.m.createPayment(basicPayment())).json().payId as string;
      const first = await arena.t.app.inject({ method: 'GET', url: `/checkout/${payId}?lang=en` });
      const cookie = String(first.headers['set-cookie']).split(';')[0]!;
      const csrf = /name="csrf" value="([^"]+)"/.exec(first.body)![1]!;
      const PAN = '4556 7375 8689 9855'; // Luhn-valid, not a test card
      const hostile = `Nino\u0001\u0007\u001b[31m\u0085\u009b ${PAN}`; // (a NUL makes the whole form a 400 page)
      const forms: [string, Record<string, string>][] = [
        // A card problem shows the form again with what was typed (the name, the expiry).
        [
          `/checkout/${payId}/pay`,
          { method: '5', number: '4111111111111112', expiry: `12/30${hostile}`, securityCode: '12', holder: hostile },
        ],
        [
          `/checkout/${payId}/pay`,
          { method: '5', number: PAN.replace(/ /g, ''), expiry: '13/30', securityCode: '123', holder: hostile },
        ],
        // A failed login shows the form again with the user name.
        [`/checkout/${payId}/pay`, { method: '7', username: hostile, password: hostile }],
        [`/checkout/${payId}/pay`, { method: '9', outcome: hostile }],
        [`/checkout/${payId}/3ds`, { code: hostile, action: hostile }],
        [`/checkout/${payId}/qr/${arena.targets.token[0]}`, { outcome: hostile }],
      ];
      for (const [url, fields] of forms) {
        const logged = arena.logs.length;
        const payload = new URLSearchParams({ csrf, lang: 'en', ...fields }).toString();
        const res = await arena.t.app.inject({
          method: 'POST',
          url: `${url}?note=${encodeURIComponent(hostile)}`,
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          payload,
        });
        assert.ok(res.statusCode < 500, `${url}: ${res.statusCode}`);
        const shown =
          res.statusCode === 303
            ? await arena.t.app.inject({ method: 'GET', url: String(res.headers.location), headers: { cookie } })
            : res;
        assertCleanEcho(
          shown.body,
          String(shown.headers['content-type']),
          [PAN.replace(/ /g, '')],
          arena.logs.slice(logged),
          `${url} ${JSON.stringify(fields)}`,
        );
      }
      // What was typed did come back (cleaned), so the checks above saw real echoes.
      const card = await arena.t.app.inject({
        method: 'POST',
        url: `/checkout/${payId}/pay`,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          csrf,
          lang: 'en',
          method: '5',
          number: '1',
          expiry: '1',
          securityCode: '1',
          holder: 'Nino\u0085Beridze',
        }).toString(),
      });
      assert.match(card.body, /name="holder"[^>]*value="NinoBeridze"/);
      const again = await arena.t.app.inject({
        method: 'POST',
        url: `/checkout/${payId}/pay`,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          csrf,
          lang: 'en',
          method: '7',
          username: 'Nino\u0007Beridze',
          password: 'x',
        }).toString(),
      });
      assert.match(again.body, /value="NinoBeridze"/);
    });
  }
});
