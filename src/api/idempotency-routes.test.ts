// Class (c) of issue 26: every POST, PUT, PATCH and DELETE of the merchant API honours
// Idempotency-Key the same way, checked route by route from Fastify's route table (a new route
// without a recipe here fails the first test): the same key and body replay the first answer
// (status and body, `Idempotent-Replayed: true`) and change nothing again, another body with the
// same key is a 422, and two requests with one key at once answer the first answer or the
// documented 409 — never two operations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { BACKENDS } from '../testing/databases.ts';
import { MerchantClient, basicPayment, createPaid, useGateway, type TestGateway } from '../testing/harness.ts';
import { servedRoutes } from '../testing/hostile/endpoints.ts';

interface Keyed {
  method: NonNullable<InjectOptions['method']>;
  url: string;
  body: Record<string, unknown>;
  /** Another request for the same key (a 422). */
  other: Record<string, unknown>;
  /** What must stay the same in a replay (default: the whole body). */
  replayed?: (body: Record<string, unknown>) => unknown;
}

/** A fresh request each route accepts, for a merchant of its own (one whose state no other route touched). */
const RECIPES: Record<string, (t: TestGateway, m: MerchantClient) => Promise<Keyed>> = {
  'POST /v1/gateway/payments': async () => ({
    method: 'POST',
    url: '/v1/gateway/payments',
    body: basicPayment(),
    other: basicPayment({ amount: { currency: 'GEL', total: 11 } }),
  }),
  'POST /v1/gateway/payments/:_/cancel': async (t, m) => ({
    method: 'POST',
    url: `/v1/gateway/payments/${await createPaid(t, m)}/cancel`,
    body: { amount: '1.00' },
    other: { amount: '2.00' },
  }),
  'POST /v1/gateway/payments/:_/completion': async (t, m) => ({
    method: 'POST',
    url: `/v1/gateway/payments/${await createPaid(t, m, { preAuth: true })}/completion`,
    body: { amount: '5.00' },
    other: { amount: '6.00' },
  }),
  'POST /v1/gateway/payments/execution': async (t, m) => {
    const recId = await savedCard(t, m);
    const body = (amount: string) => ({ recId, money: { amount, currency: 'GEL' }, initiator: 'merchant' });
    return { method: 'POST', url: '/v1/gateway/payments/execution', body: body('1.00'), other: body('2.00') };
  },
  'POST /v1/gateway/payments/:_/delete': async (t, m) => ({
    method: 'POST',
    url: `/v1/gateway/payments/${await savedCard(t, m)}/delete`,
    body: {},
    other: { reason: 'other' },
  }),
  'DELETE /v1/gateway/payments/:_': async (t, m) => ({
    method: 'DELETE',
    url: `/v1/gateway/payments/${await savedCard(t, m)}`,
    body: {},
    other: { reason: 'other' },
  }),
  'POST /v1/gateway/payments/:_/callbacks/redeliver': async (t, m) => ({
    method: 'POST',
    url: `/v1/gateway/payments/${await createPaid(t, m, { callbackUrl: 'http://127.0.0.1:9/cb' })}/callbacks/redeliver`,
    body: {},
    other: { x: 1 },
  }),
  'POST /v1/gateway/callbacks/redeliver': async () => ({
    method: 'POST',
    url: '/v1/gateway/callbacks/redeliver',
    body: { state: 'failed' },
    other: { state: 'undeliverable' },
  }),
  // The key itself exists only as a digest after the first answer: a replay names it without it.
  'POST /v1/gateway/api-keys': async () => ({
    method: 'POST',
    url: '/v1/gateway/api-keys',
    body: {},
    other: { note: 'other' },
    replayed: ({ apiKey: _, ...named }) => named,
  }),
  'DELETE /v1/gateway/api-keys/:_': async (_t, m) => {
    const created = await m.post('/v1/gateway/api-keys', {});
    return { method: 'DELETE', url: `/v1/gateway/api-keys/${created.json().id}`, body: {}, other: { note: 'other' } };
  },
};

/** Routes of the merchant API that take no Idempotency-Key, and why. */
const UNKEYED: Record<string, string> = {
  'POST /v1/gateway/access-token':
    'issues a token from the credentials in the request; it changes nothing a retry could do twice',
};

async function savedCard(t: TestGateway, m: MerchantClient): Promise<string> {
  const payId = await createPaid(t, m, { saveCard: true });
  return (await m.getPayment(payId)).json().recurringCard.recId as string;
}

const mutatingMerchantRoutes = (t: TestGateway) =>
  servedRoutes(t.app.printRoutes({ commonPrefix: false })).filter((k) =>
    /^(POST|PUT|PATCH|DELETE) \/v1\/gateway\//.test(k),
  );

for (const backend of BACKENDS) {
  describe(`Idempotency-Key on every merchant POST, PUT, PATCH and DELETE [${backend}]`, () => {
    const ctx = useGateway(backend);

    it('every such route of the route table has a recipe here or a reason to take no key', () => {
      const routes = mutatingMerchantRoutes(ctx.t);
      assert.ok(routes.length >= 10, routes.join(', '));
      assert.deepEqual(
        routes.filter((k) => !RECIPES[k] && !UNKEYED[k]),
        [],
      );
    });

    for (const key of Object.keys(RECIPES)) {
      it(`${key}: a replay answers the first answer, another body is a 422, two at once run once`, async () => {
        const send = (m: MerchantClient, r: Keyed, body: Record<string, unknown>, idem: string) =>
          ctx.t.app.inject({
            method: r.method,
            url: r.url,
            payload: body,
            headers: m.headers({ 'content-type': 'application/json', 'idempotency-key': idem }),
          });
        const m = await MerchantClient.create(ctx.t);
        const r = await RECIPES[key]!(ctx.t, m);
        const same = (x: string) => (x === '' ? null : r.replayed ? r.replayed(JSON.parse(x)) : JSON.parse(x));
        const first = await send(m, r, r.body, 'key-1');
        assert.ok(first.statusCode < 300, `the recipe was refused: ${first.statusCode} ${first.body}`);
        const again = await send(m, r, r.body, 'key-1');
        assert.equal(again.statusCode, first.statusCode, again.body);
        assert.equal(again.headers['idempotent-replayed'], 'true', `${key}: not a replay`);
        assert.deepEqual(same(again.body), same(first.body));
        const other = await send(m, r, r.other, 'key-1');
        assert.equal(other.statusCode, 422, other.body);
        assert.match(other.json().systemCode, /\.422\.001$/);

        // Two at once with a fresh key on a fresh target: one runs; the other answers what it did or 409.
        const m2 = await MerchantClient.create(ctx.t);
        const r2 = await RECIPES[key]!(ctx.t, m2);
        const both = await Promise.all([send(m2, r2, r2.body, 'key-2'), send(m2, r2, r2.body, 'key-2')]);
        const ok = both.filter((b) => b.statusCode === first.statusCode);
        assert.ok(
          ok.length >= 1 && both.every((b) => b.statusCode === first.statusCode || b.statusCode === 409),
          both.map((b) => `${b.statusCode} ${b.body}`).join(' | '),
        );
        const replay = await send(m2, r2, r2.body, 'key-2');
        for (const b of ok)
          assert.deepEqual(same(b.body), same(replay.body), 'two requests with one key answered two different results');
      });
    }
  });
}
