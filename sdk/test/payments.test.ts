// The SDK against a running gateway (its HTTP port, on both backends): every payments method,
// cards.delete, the events feed, typed errors, the token after a secret rotation, the retry of a
// real 409 with the same Idempotency-Key, and the tpay product segment.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../src/testing/databases.ts';
import type { TestGateway } from '../../src/testing/harness.ts';
import { KaribcheError, type PaymentEvent } from '../src/index.ts';
import { pay, sdkGateway, sdkMerchant, type Call } from './helpers.ts';

const order = (over: Record<string, unknown> = {}) => ({
  amount: { currency: 'GEL', total: 10 },
  returnurl: 'https://shop.example/return',
  ...over,
});
const tokenCalls = (calls: Call[]) => calls.filter((c) => c.url.endsWith('/access-token'));
const rejectsWith = (p: Promise<unknown>, status: number, systemCode: string) =>
  assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof KaribcheError, String(err));
    assert.equal(err.status, status);
    assert.equal(err.systemCode, systemCode);
    return true;
  });

for (const backend of BACKENDS) {
  describe(`SDK against a running gateway [${backend}]`, { timeout: 180_000 }, () => {
    let t: TestGateway;
    let base: string;
    before(async () => {
      // The acquirer answers in 300 ms, so that two refunds with one key really overlap.
      ({ t, base } = await sdkGateway(backend, { KARIBCHE_PATH_ALIASES: 'tpay', KARIBCHE_SIM_LATENCY_MS: '300' }));
    });
    after(() => t.close());

    it('payments.create, get, list and cancel; an Idempotency-Key on every POST; one token for every call', async () => {
      const { client, calls } = await sdkMerchant(t, base);
      const created = await client.payments.create(order({ merchantPaymentId: 'sdk-1' }));
      assert.equal(created.status, 'Created');
      assert.match(created.links[1]!.uri, /\/checkout\//);
      await pay(t, created.payId);
      const got = await client.payments.get(created.payId);
      assert.equal(got.status, 'Succeeded');
      assert.equal(got.merchantPaymentId, 'sdk-1');
      const listed = await client.payments.list({ status: 'Succeeded', limit: '5' });
      assert.deepEqual(
        listed.items.map((p) => p.payId),
        [created.payId],
      );
      const refunded = await client.payments.cancel(created.payId, { amount: 4 });
      assert.equal(refunded.status, 'PartialReturned');
      assert.equal(refunded.returnedAmount, 4);
      const again = await client.payments.create(order(), { idempotencyKey: 'order-2-create' });
      assert.equal(
        (await client.payments.create(order(), { idempotencyKey: 'order-2-create' })).payId,
        again.payId,
        'the same key replays',
      );

      const posts = calls.filter((c) => c.method === 'POST' && !c.url.endsWith('/access-token'));
      assert.equal(posts.length, 4);
      assert.ok(posts.every((c) => c.headers['idempotency-key']));
      assert.equal(new Set(posts.slice(0, 2).map((c) => c.headers['idempotency-key'])).size, 2, 'a new key per call');
      assert.equal(tokenCalls(calls).length, 1, 'the token is cached');
    });

    it('pre-authorisation and completion; a saved card charged with execute and deleted with cards.delete', async () => {
      const { client } = await sdkMerchant(t, base);
      const held = await client.payments.create(order({ preAuth: true }));
      await pay(t, held.payId);
      assert.equal((await client.payments.get(held.payId)).status, 'WaitingConfirm');
      const completed = await client.payments.complete(held.payId, { amount: 7 });
      assert.deepEqual([completed.status, completed.confirmedAmount], ['Succeeded', 7]);

      const saver = await client.payments.create(order({ saveCard: true }));
      await pay(t, saver.payId);
      const recId = saver.recId!;
      const charged = await client.payments.execute({ recId, money: { amount: 3, currency: 'GEL' } });
      assert.deepEqual([charged.status, charged.amount, charged.paymentMethod], ['Succeeded', 3, 11]);
      assert.equal((await client.cards.delete(recId))?.httpStatusCode, 200);
      await rejectsWith(
        client.payments.execute({ recId, money: { amount: 3, currency: 'GEL' } }),
        400,
        'execute-payment.400.060',
      );
    });

    it('answers errors as a KaribcheError carrying the problem JSON', async () => {
      const { client } = await sdkMerchant(t, base);
      const err = await client.payments
        .create({ amount: { currency: 'GEL', total: 0 }, returnurl: 'https://shop.example/r' })
        .catch((e: unknown) => e);
      assert.ok(err instanceof KaribcheError);
      assert.equal(err.status, 400);
      assert.equal(err.systemCode, 'create-payment.400.010');
      assert.equal(err.resultCode, 'invalid_request');
      assert.deepEqual(
        err.invalidParams.map((p) => p.name),
        ['amount.total'],
      );
      assert.ok(err.requestId);
      assert.match(err.message, /create-payment\.400\.010/);
      await rejectsWith(client.payments.get('pay_unknown'), 404, 'get-payment.404.001');
      await rejectsWith(client.payments.complete('pay_unknown', { amount: 1 }), 404, 'complete-payment.404.001');
    });

    it('after the client secret is rotated, the refused token is replaced once, with the new secret', async () => {
      const { credentials } = await sdkMerchant(t, base);
      let secret = credentials.clientSecret;
      const { client, calls } = await sdkMerchant(t, base, {
        clientId: credentials.clientId,
        apiKey: credentials.apiKey,
        clientSecret: () => secret,
      });
      await client.payments.list();
      const rotated = await t.admin('POST', `/admin/v1/merchants/${credentials.clientId}/client-secret`);
      secret = rotated.json().clientSecret;
      await client.payments.list();
      assert.deepEqual(
        calls.map((c) => [c.method, new URL(c.url).pathname, c.status]),
        [
          ['POST', '/v1/gateway/access-token', 200],
          ['GET', '/v1/gateway/payments', 200],
          ['GET', '/v1/gateway/payments', 401],
          ['POST', '/v1/gateway/access-token', 200],
          ['GET', '/v1/gateway/payments', 200],
        ],
      );
      // With the old secret the new token cannot be had: the 401 surfaces after one renewal.
      secret = credentials.clientSecret;
      await t.admin('POST', `/admin/v1/merchants/${credentials.clientId}/client-secret`);
      await rejectsWith(client.payments.list(), 400, 'access-token.400.001');
    });

    it('a concurrent request with the same Idempotency-Key gets the real 409 and is retried with that key until it replays', async () => {
      const { client, calls } = await sdkMerchant(t, base);
      const p = await client.payments.create(order());
      await pay(t, p.payId);
      const [a, b] = await Promise.all([
        client.payments.cancel(p.payId, { amount: 2 }, { idempotencyKey: 'refund-7' }),
        client.payments.cancel(p.payId, { amount: 2 }, { idempotencyKey: 'refund-7' }),
      ]);
      assert.deepEqual(a, b);
      const cancels = calls.filter((c) => c.url.endsWith('/cancel'));
      assert.ok(
        cancels.some((c) => c.status === 409),
        `a 409 was answered: ${cancels.map((c) => c.status)}`,
      );
      assert.ok(cancels.every((c) => c.headers['idempotency-key'] === 'refund-7'));
      assert.equal((await client.payments.get(p.payId)).returnedAmount, 2, 'refunded once');
    });

    it('product tpay: the same calls under /v1/tpay (KARIBCHE_PATH_ALIASES=tpay, as at the bank)', async () => {
      const { client, calls } = await sdkMerchant(t, base, { product: 'tpay' });
      const created = await client.payments.create(order());
      assert.match(created.links[0]!.uri, /\/v1\/tpay\/payments\//);
      await pay(t, created.payId);
      assert.equal((await client.payments.get(created.payId)).status, 'Succeeded');
      assert.ok(
        calls.length >= 3 && calls.every((c) => new URL(c.url).pathname.startsWith('/v1/tpay/')),
        calls.map((c) => c.url).join(' '),
      );
    });

    it('events.list pages the feed; events.stream follows new changes live', async () => {
      const { client } = await sdkMerchant(t, base);
      const controller = new AbortController();
      let connected!: () => void;
      const open = new Promise<void>((r) => (connected = r));
      const seen: PaymentEvent[] = [];
      const following = (async () => {
        for await (const e of client.events.stream({ signal: controller.signal, onConnect: () => connected() })) {
          seen.push(e);
          if (seen.length === 2) break;
        }
      })();
      await open;
      const p = await client.payments.create(order());
      await pay(t, p.payId);
      await following;
      controller.abort();
      assert.deepEqual(
        seen.map((e) => [e.payId, e.previousStatus, e.status]),
        [
          [p.payId, 'Created', 'Processing'],
          [p.payId, 'Processing', 'Succeeded'],
        ],
      );
      const page = await client.events.list();
      assert.deepEqual(
        page.items.map((e) => e.id),
        seen.map((e) => e.id),
      );
      assert.deepEqual(
        (await client.events.list({ after: seen[0]!.id })).items.map((e) => e.status),
        ['Succeeded'],
      );
      await rejectsWith(client.events.list({ after: 'x' }), 400, 'events.400.070');
    });
  });
}
