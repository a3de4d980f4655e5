import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BACKENDS } from '../../testing/databases.ts';
import { MerchantClient, countRows, secondGateway, useGateway } from '../../testing/harness.ts';
import type { Gateway } from '../../gateway.ts';

for (const backend of BACKENDS) {
  describe(`merchant API keys [${backend}]`, () => {
    const ctx = useGateway(backend);
    const others: Gateway[] = [];
    after(async () => {
      for (const g of others) {
        await g.close();
        await g.services.db.close();
      }
    });

    it('creates a key shown once, lists it by id and prefix, and the new key works', async () => {
      const res = await ctx.m.post('/v1/gateway/api-keys', {});
      assert.equal(res.statusCode, 201, res.body);
      const key = res.json();
      assert.match(key.apiKey, /^kbk_/);
      assert.match(key.id, /^ak_[0-9a-f]{16}$/);
      const listed = (await ctx.m.get('/v1/gateway/api-keys')).json().items;
      assert.equal(listed.length, 2);
      assert.ok(
        listed.some(
          (k: { id: string; prefix: string }) => k.id === key.id && key.apiKey.startsWith(k.prefix.replace('…', '')),
        ),
      );
      assert.ok(!JSON.stringify(listed).includes(key.apiKey), 'the key itself is never listed');
      const withNew = new MerchantClient(ctx.t.app, { ...ctx.m.credentials, apiKey: key.apiKey }, ctx.m.token);
      assert.equal((await withNew.get('/v1/gateway/api-keys')).statusCode, 200);
    });

    it('revoking a key makes it 401 at once, in this process and in another one', async () => {
      const created = (await ctx.m.post('/v1/gateway/api-keys', {})).json();
      const doomed = new MerchantClient(ctx.t.app, { ...ctx.m.credentials, apiKey: created.apiKey }, ctx.m.token);
      assert.equal((await doomed.get('/v1/gateway/payments')).statusCode, 200); // cached here now
      const other = backend === 'postgres' ? await secondGateway(ctx.t) : null;
      if (other) others.push(other);
      const remote = other ? new MerchantClient(other.app, doomed.credentials, doomed.token) : null;
      if (remote) assert.equal((await remote.get('/v1/gateway/payments')).statusCode, 200); // cached there too

      const del = await ctx.m.app.inject({
        method: 'DELETE',
        url: `/v1/gateway/api-keys/${created.id}`,
        headers: ctx.m.headers(),
      });
      assert.equal(del.statusCode, 204, del.body);
      const local = await doomed.get('/v1/gateway/payments');
      assert.equal(local.statusCode, 401);
      assert.equal(local.json().systemCode, 'list-payments.401.001');
      if (remote) {
        // The other process learns by notification; its cache TTL (5 s) is only the safety net.
        const t0 = Date.now();
        let status = 200;
        while (status !== 401 && Date.now() - t0 < 4_000) {
          status = (await remote.get('/v1/gateway/payments')).statusCode;
          if (status !== 401) await new Promise((r) => setTimeout(r, 25));
        }
        assert.equal(status, 401, 'revoked key still accepted by the other process');
      }
    });

    it('refuses unknown ids, ids already revoked and the last active key, changing nothing', async () => {
      const keys = (await ctx.m.get('/v1/gateway/api-keys')).json().items as { id: string }[];
      const before = await countRows(ctx.t, 'api_keys WHERE revoked_at IS NULL');
      for (const id of ['nope', 'ak_0000000000000000', `ak_${'f'.repeat(16)}`, 'x'.repeat(100)]) {
        const res = await ctx.m.app.inject({
          method: 'DELETE',
          url: `/v1/gateway/api-keys/${id}`,
          headers: ctx.m.headers(),
        });
        assert.equal(res.statusCode, 404, `${id}: ${res.body}`);
        assert.equal(res.json().systemCode, 'api-keys.404.005');
      }
      // Revoke every other key, then the remaining one is refused.
      const del = (id: string) =>
        ctx.m.app.inject({ method: 'DELETE', url: `/v1/gateway/api-keys/${id}`, headers: ctx.m.headers() });
      const originalId = keys[0]!.id; // listed oldest first: the merchant's first key, which ctx.m uses
      for (const k of keys.slice(1)) assert.equal((await del(k.id)).statusCode, 204);
      assert.equal(await countRows(ctx.t, 'api_keys WHERE revoked_at IS NULL'), before - (keys.length - 1));
      const last = await del(originalId);
      assert.equal(last.statusCode, 409, last.body);
      assert.equal(last.json().systemCode, 'api-keys.409.003');
      assert.equal((await ctx.m.get('/v1/gateway/api-keys')).statusCode, 200, 'the last key still works');
    });

    it("does not let a merchant revoke another merchant's key", async () => {
      const other = await MerchantClient.create(ctx.t);
      const theirs = (await other.get('/v1/gateway/api-keys')).json().items[0].id;
      const res = await ctx.m.app.inject({
        method: 'DELETE',
        url: `/v1/gateway/api-keys/${theirs}`,
        headers: ctx.m.headers(),
      });
      assert.equal(res.statusCode, 404);
      assert.equal((await other.get('/v1/gateway/api-keys')).statusCode, 200);
    });
  });
}
