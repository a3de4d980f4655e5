import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../../testing/databases.ts';
import { MerchantClient, basicPayment, countRows, useGateway } from '../../testing/harness.ts';
import { redactBody } from '../../requests/redact.ts';

describe('redactBody', () => {
  it('removes secrets by field name and card numbers and keys by shape', () => {
    const out = redactBody(
      JSON.stringify({
        client_secret: 'x',
        nested: { cardNumber: '4111111111111111', note: 'card 4111 1111 1111 1111 key kbk_abcDEF123' },
        amount: 10,
      }),
    )!;
    assert.ok(
      !out.includes('4111111111111111') &&
        !out.includes('4111 1111 1111 1111') &&
        !out.includes('abcDEF123') &&
        !out.includes('"x"'),
      out,
    );
    assert.match(out, /••••1111/);
    assert.match(out, /"amount":10/);
    assert.equal(redactBody('x'.repeat(10_000))!.length, 4097);
  });
});

for (const backend of BACKENDS) {
  describe(`GET /v1/gateway/requests [${backend}]`, () => {
    const ctx = useGateway(backend);
    const flush = () => ctx.t.app.requestLog.flush();

    it('records authenticated calls with status, systemCode, latency, request id and redacted bodies', async () => {
      const ok = await ctx.m.createPayment(basicPayment({ description: 'order 17' }));
      assert.equal(ok.statusCode, 200);
      const bad = await ctx.m.createPayment({ amount: { currency: 'GEL', total: -1 } });
      assert.equal(bad.statusCode, 400);
      await flush();
      const items = (await ctx.m.get('/v1/gateway/requests?limit=2')).json().items;
      assert.equal(items.length, 2);
      const [b, a] = items;
      assert.equal(b.status, 400);
      assert.equal(b.systemCode, bad.json().systemCode);
      assert.equal(b.requestId, bad.headers['x-request-id']);
      assert.equal(a.status, 200);
      assert.equal(a.method, 'POST');
      assert.equal(a.path, '/v1/gateway/payments');
      assert.equal(JSON.parse(a.responseBody).payId, ok.json().payId);
      assert.ok(!a.requestBody.includes('4111111111111111'), a.requestBody);
      assert.ok(Number.isInteger(a.latencyMs) && a.latencyMs >= 0);
    });

    it('filters by status class and code, pages by cursor, and rejects bad filters', async () => {
      await flush();
      const fours = (await ctx.m.get('/v1/gateway/requests?status=4xx')).json().items;
      assert.ok(fours.length >= 1 && fours.every((r: { status: number }) => r.status >= 400 && r.status < 500));
      assert.ok(
        (await ctx.m.get('/v1/gateway/requests?status=400'))
          .json()
          .items.every((r: { status: number }) => r.status === 400),
      );
      const first = (await ctx.m.get('/v1/gateway/requests?limit=1')).json();
      assert.ok(first.nextCursor);
      const second = (await ctx.m.get(`/v1/gateway/requests?limit=1&cursor=${first.nextCursor}`)).json();
      assert.notEqual(second.items[0].requestId, first.items[0].requestId);
      for (const qs of ['status=4x', 'status=600', 'limit=0', 'limit=101', 'cursor=-1']) {
        const res = await ctx.m.get(`/v1/gateway/requests?${qs}`);
        assert.equal(res.statusCode, 400, qs);
        assert.match(res.json().systemCode, /^request-log\.400\./);
      }
    });

    it('keeps another merchant out and prunes to the bound per merchant', async () => {
      const other = await MerchantClient.create(ctx.t);
      await flush();
      assert.equal((await other.get('/v1/gateway/requests')).json().items.length, 0);
      const log = ctx.t.app.requestLog;
      const now = new Date();
      for (let i = 0; i < 1005; i++)
        log.push({
          clientId: other.credentials.clientId,
          createdAt: now,
          method: 'GET',
          path: `/x/${i}`,
          status: 200,
          systemCode: null,
          latencyMs: 1,
          requestId: `r${i}`,
          requestBody: null,
          responseBody: null,
        });
      await log.pruneNow();
      assert.equal(await countRows(ctx.t, `merchant_requests WHERE client_id = '${other.credentials.clientId}'`), 1000);
      const newest = (await other.get('/v1/gateway/requests?limit=1')).json().items[0];
      assert.ok(newest.path === '/v1/gateway/requests' || newest.path === '/x/1004', newest.path);
    });
  });
}
