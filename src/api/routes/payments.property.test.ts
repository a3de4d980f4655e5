// Property test: malformed create bodies never cause a 5xx, always get the documented problem
// shape, and never create anything.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { BACKENDS } from '../../testing/databases.ts';
import {
  MerchantClient,
  SPLIT_IBAN,
  basicPayment,
  countRows,
  startTestGateway,
  type TestGateway,
} from '../../testing/harness.ts';

const CASES_PER_KIND = Number(process.env.KARIBCHE_PROPERTY_RUNS ?? 400);

// Each mutation makes a valid body invalid, whatever else is changed.
const breakers: fc.Arbitrary<(b: Record<string, any>) => void>[] = [
  fc.constantFrom(
    (b) => delete b.amount,
    (b) => delete b.returnurl,
    (b) => (b.amount = { currency: 'XXX', total: 10 }),
    (b) => (b.amount = { currency: 'GEL', total: -1 }),
    (b) => (b.amount = { currency: 'GEL', total: '1.001' }),
    (b) => (b.amount = { currency: 'GEL', total: 0 }),
    (b) => (b.returnurl = 'not a url'),
    (b) => (b.expirationMinutes = 0),
    (b) => (b.methods = [11]),
    (b) => (b.methods = [8]),
    (b) => (b.language = 'XX'),
    (b) => (b.saveCardToDate = '1300'),
    (b) => (b.callbackUrl = 'https://unregistered.example/'),
    (b) => Object.assign(b, { extra: SPLIT_IBAN.replace('60', '61'), extra2: '1' }),
    (b) => Object.assign(b, { extra: SPLIT_IBAN, extra2: '999999' }),
    (b) => (b.userIpAddress = 'localhost'),
    (b) => (b.description = 'x'.repeat(31)),
  ),
  fc
    .record({
      key: fc.constantFrom(
        'amount',
        'returnurl',
        'methods',
        'preAuth',
        'expirationMinutes',
        'installmentProducts',
        'saveCard',
      ),
      value: fc.oneof(
        fc.string(),
        fc.integer(),
        fc.boolean(),
        fc.constant({}),
        fc.array(fc.string(), { maxLength: 3 }),
      ),
    })
    .map(({ key, value }) => (b: Record<string, any>) => {
      // A value of the wrong type for a field that needs another one.
      const wrong: Record<string, (v: unknown) => boolean> = {
        amount: (v) => typeof v !== 'object' || Array.isArray(v) || Object.keys(v as object).length === 0,
        returnurl: (v) => typeof v !== 'string' || !/^https?:\/\/./.test(v),
        methods: (v) => !Array.isArray(v) || v.length > 0,
        preAuth: (v) => typeof v !== 'boolean',
        expirationMinutes: (v) => typeof v !== 'number' || (v as number) < 1 || (v as number) > 1440,
        installmentProducts: (v) => !Array.isArray(v) || v.length > 0,
        saveCard: (v) => typeof v !== 'boolean',
      };
      b[key] = wrong[key]!(value) ? value : 'definitely-wrong';
      if (key === 'methods' && Array.isArray(b[key]) && b[key].length === 0) b[key] = 'x';
      if (key === 'installmentProducts' && Array.isArray(b[key]) && b[key].length === 0) b[key] = [{}];
    }),
];

const noise = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

for (const backend of BACKENDS) {
  describe(`malformed create bodies (property) [${backend}]`, () => {
    let t: TestGateway;
    let m: MerchantClient;
    let payments: number;
    before(async () => {
      t = await startTestGateway(backend);
      m = await MerchantClient.create(t);
      payments = await countRows(t, 'payments');
    });
    after(() => t.close());

    async function check(payload: string) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/gateway/payments',
        headers: m.headers({ 'content-type': 'application/json' }),
        payload,
      });
      assert.ok(
        res.statusCode >= 400 && res.statusCode < 500,
        `status ${res.statusCode} for ${payload.slice(0, 200)}: ${res.body.slice(0, 300)}`,
      );
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const body = res.json();
      assert.equal(body.status, String(res.statusCode));
      assert.match(body.systemCode, /^create-payment\.4\d\d\.\d{3}$/);
      for (const k of ['type', 'title', 'detail']) assert.equal(typeof body[k], 'string');
      if (res.statusCode === 400) assert.equal(typeof body.resultCode, 'string');
    }

    it(`valid bodies with 1–3 breaking mutations and noise (${CASES_PER_KIND} cases)`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof(...breakers), { minLength: 1, maxLength: 3 }),
          noise,
          async (mutations, extra) => {
            const body: Record<string, any> = { ...extra, ...basicPayment({ amount: { currency: 'GEL', total: 10 } }) };
            for (const mutate of mutations) mutate(body);
            await check(JSON.stringify(body));
          },
        ),
        { numRuns: CASES_PER_KIND },
      );
      assert.equal(await countRows(t, 'payments'), payments);
    });

    it(`arbitrary JSON values (${CASES_PER_KIND} cases)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (v) => check(JSON.stringify(v))),
        { numRuns: CASES_PER_KIND },
      );
      assert.equal(await countRows(t, 'payments'), payments);
    });

    it(`arbitrary bytes as the body (${CASES_PER_KIND} cases)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 200 }), async (s) => check(s.trim() === '' ? '{' : s)),
        { numRuns: CASES_PER_KIND },
      );
      assert.equal(await countRows(t, 'payments'), payments);
    });
  });
}
