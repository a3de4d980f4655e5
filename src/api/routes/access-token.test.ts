import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT, UnsecuredJWT } from 'jose';
import { BACKENDS } from '../../testing/databases.ts';
import {
  MerchantClient,
  accessToken,
  basicPayment,
  createMerchant,
  secondGateway,
  startTestGateway,
  type Credentials,
  type TestGateway,
} from '../../testing/harness.ts';

for (const backend of BACKENDS) {
  describe(`authentication [${backend}]`, () => {
    let t: TestGateway;
    let a: MerchantClient;
    let b: MerchantClient;
    before(async () => {
      t = await startTestGateway(backend, { KARIBCHE_AUTH_FAILURE_LIMIT: '5' });
      a = await MerchantClient.create(t);
      b = await MerchantClient.create(t);
    });
    after(() => t.close());

    const tokenRequest = (apikey: string | undefined, payload: unknown, contentType = 'application/json') =>
      t.app.inject({
        method: 'POST',
        url: '/v1/gateway/access-token',
        headers: { ...(apikey === undefined ? {} : { apikey }), 'content-type': contentType },
        payload: payload as string,
      });

    it('issues a bearer token from form data or JSON, with client_Id spelled either way', async () => {
      const c = a.credentials;
      for (const res of [
        await tokenRequest(
          c.apiKey,
          `client_id=${c.clientId}&client_secret=${c.clientSecret}`,
          'application/x-www-form-urlencoded',
        ),
        await tokenRequest(
          c.apiKey,
          `client_Id=${c.clientId}&Client_Secret=${c.clientSecret}`,
          'application/x-www-form-urlencoded',
        ),
        await tokenRequest(c.apiKey, { client_Id: c.clientId, client_secret: c.clientSecret }),
      ]) {
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.token_type, 'Bearer');
        assert.equal(body.expires_in, 86400);
        assert.match(body.access_token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      }
    });

    it('401 for a missing or unknown API key', async () => {
      const c = a.credentials;
      for (const key of [undefined, '', 'kbk_nope']) {
        const res = await tokenRequest(key, { client_id: c.clientId, client_secret: c.clientSecret });
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().title, 'Invalid API key');
        assert.equal(res.json().systemCode, 'access-token.401.001');
      }
    });

    it('401 when the API key belongs to another merchant than client_id', async () => {
      const res = await tokenRequest(b.credentials.apiKey, {
        client_id: a.credentials.clientId,
        client_secret: a.credentials.clientSecret,
      });
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().systemCode, 'access-token.401.001');
    });

    it('400 access-token.400.001 for wrong, unknown or missing client credentials', async () => {
      const c = a.credentials;
      for (const payload of [
        { client_id: c.clientId, client_secret: 'wrong' },
        { client_id: 'kcnobody', client_secret: c.clientSecret },
        { client_id: c.clientId },
        {},
      ]) {
        const res = await tokenRequest(c.apiKey, payload);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().systemCode, 'access-token.400.001');
        assert.equal(res.json().title, 'Invalid client credentials');
        assert.ok(!res.body.includes(c.clientSecret));
      }
    });

    it('rate limits repeated failures with 429 and Retry-After, and lets the window pass', async () => {
      const { credentials: c } = await createMerchant(t);
      let last;
      for (let i = 0; i < 6; i++)
        last = await tokenRequest(c.apiKey, { client_id: c.clientId, client_secret: `wrong-${i}` });
      assert.equal(last!.statusCode, 429);
      assert.equal(last!.json().systemCode, 'access-token.429.001');
      const retryAfter = Number(last!.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 300, String(retryAfter));
      // Even the right secret is refused while the limit holds…
      assert.equal(
        (await tokenRequest(c.apiKey, { client_id: c.clientId, client_secret: c.clientSecret })).statusCode,
        429,
      );
      // …and works again once the window has passed on the gateway clock.
      await t.gw.services.sharedClock.advance(301);
      assert.equal(
        (await tokenRequest(c.apiKey, { client_id: c.clientId, client_secret: c.clientSecret })).statusCode,
        200,
      );
      a.token = await accessToken(t.app, a.credentials);
      b.token = await accessToken(t.app, b.credentials);
    });

    it("never locks a merchant out through another merchant's API key: a key/client mismatch is 401 and counts against the address only", async () => {
      const { credentials: victim } = await createMerchant(t);
      for (let i = 0; i < 12; i++) {
        const res = await tokenRequest(a.credentials.apiKey, {
          client_id: victim.clientId,
          client_secret: `wrong-${i}`,
        });
        assert.equal(res.statusCode, 401, res.body);
        assert.equal(res.json().systemCode, 'access-token.401.001');
      }
      const own = await tokenRequest(victim.apiKey, { client_id: victim.clientId, client_secret: victim.clientSecret });
      assert.equal(own.statusCode, 200, own.body);
      const { rows } = await t.gw.services.db.query<{ key: string; failures: number }>(
        'SELECT key, failures FROM auth_failures WHERE key = $1',
        [`cid:${victim.clientId}`],
      );
      assert.deepEqual(
        rows.map((r) => r.failures),
        [0],
        'nothing counted against the victim',
      );
    });

    const call = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/gateway/payments',
        headers: { 'content-type': 'application/json', ...headers },
        payload: basicPayment(),
      });

    it('limits token requests per source address per minute (flood guard), whatever their outcome', async () => {
      const flood = await startTestGateway(backend, { KARIBCHE_TOKEN_REQUESTS_PER_MINUTE: '3' });
      try {
        const { credentials: c } = await createMerchant(flood);
        const codes = [];
        for (let i = 0; i < 4; i++) {
          const res = await flood.app.inject({
            method: 'POST',
            url: '/v1/gateway/access-token',
            headers: { apikey: c.apiKey },
            payload: { client_id: c.clientId, client_secret: c.clientSecret },
          });
          codes.push(res.statusCode);
          if (res.statusCode === 429) {
            assert.equal(res.json().systemCode, 'access-token.429.001');
            assert.ok(Number(res.headers['retry-after']) > 0);
          }
        }
        assert.deepEqual(codes, [200, 200, 200, 429]);
      } finally {
        await flood.close();
      }
    });

    it('every merchant call needs a valid API key and a valid bearer token of the same merchant', async () => {
      const ok = await call({ apikey: a.credentials.apiKey, authorization: `Bearer ${a.token}` });
      assert.equal(ok.statusCode, 200);
      const noKey = await call({ authorization: `Bearer ${a.token}` });
      assert.equal(noKey.statusCode, 401);
      assert.equal(noKey.json().systemCode, 'create-payment.401.001');
      const wrongKey = await call({ apikey: 'kbk_wrong', authorization: `Bearer ${a.token}` });
      assert.equal(wrongKey.json().systemCode, 'create-payment.401.001');
      const crossed = await call({ apikey: b.credentials.apiKey, authorization: `Bearer ${a.token}` });
      assert.equal(crossed.statusCode, 401);
      assert.equal(crossed.json().systemCode, 'create-payment.401.001');
      for (const authorization of [
        undefined,
        '',
        'Bearer',
        `Basic ${a.token}`,
        'Bearer not.a.jwt',
        `Bearer ${a.token}x`,
      ]) {
        const res = await call({
          apikey: a.credentials.apiKey,
          ...(authorization === undefined ? {} : { authorization }),
        });
        assert.equal(res.statusCode, 401, String(authorization));
        assert.equal(res.json().systemCode, 'create-payment.401.002');
        assert.equal(res.headers['www-authenticate'], 'Bearer error="invalid_token"');
      }
      const get = await t.app.inject({
        method: 'GET',
        url: `/v1/gateway/payments/${ok.json().payId}`,
        headers: { apikey: a.credentials.apiKey },
      });
      assert.equal(get.json().systemCode, 'get-payment.401.002');
    });

    it('refuses forged tokens: alg none, wrong key, tampered claims', async () => {
      const now = Math.floor(t.clock.nowMs() / 1000);
      const claims = {
        sv: 1,
        sub: a.credentials.clientId,
        iss: 'karibche',
        aud: 'karibche-merchant-api',
        iat: now,
        exp: now + 3600,
      };
      const none = new UnsecuredJWT(claims).encode();
      const wrongKey = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
        .sign(new TextEncoder().encode('x'.repeat(32)));
      const [h, , s] = a.token.split('.');
      const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: b.credentials.clientId })).toString('base64url')}.${s}`;
      for (const tok of [none, wrongKey, tampered]) {
        const res = await call({ apikey: a.credentials.apiKey, authorization: `Bearer ${tok}` });
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().systemCode, 'create-payment.401.002');
      }
    });

    it('expires tokens after 24 h on the gateway clock', async () => {
      const { credentials } = await createMerchant(t);
      const m = new MerchantClient(t.app, credentials, await accessToken(t.app, credentials));
      // A minute before the end the token still works (real time also passes on a loaded machine:
      // a 1 s margin was not enough); once 24 h of gateway time have passed it never does.
      await t.gw.services.sharedClock.advance(86_340);
      assert.equal((await m.createPayment(basicPayment())).statusCode, 200);
      await t.gw.services.sharedClock.advance(60);
      const res = await m.createPayment(basicPayment());
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().systemCode, 'create-payment.401.002');
      a.token = await accessToken(t.app, a.credentials);
      b.token = await accessToken(t.app, b.credentials);
    });

    it('invalidates earlier tokens when the client secret rotates; new secret works', async () => {
      const { credentials } = await createMerchant(t);
      const old = await accessToken(t.app, credentials);
      const rot = await t.admin('POST', `/admin/v1/merchants/${credentials.clientId}/client-secret`);
      assert.equal(rot.statusCode, 200);
      const { clientSecret } = rot.json();
      const res = await call({ apikey: credentials.apiKey, authorization: `Bearer ${old}` });
      assert.equal(res.statusCode, 401);
      assert.match(res.json().detail, /rotated/);
      assert.equal(
        (
          await tokenRequest(credentials.apiKey, {
            client_id: credentials.clientId,
            client_secret: credentials.clientSecret,
          })
        ).statusCode,
        400,
      );
      const fresh = await accessToken(t.app, { ...credentials, clientSecret } as Credentials);
      assert.equal((await call({ apikey: credentials.apiKey, authorization: `Bearer ${fresh}` })).statusCode, 200);
    });

    it('accepts every active API key of a merchant (rotation), and tokens across a signing-key rotation', async () => {
      const { credentials } = await createMerchant(t);
      const tok = await accessToken(t.app, credentials);
      const added = (await t.admin('POST', `/admin/v1/merchants/${credentials.clientId}/api-keys`)).json().apiKey;
      assert.match(added, /^kbk_/);
      for (const key of [credentials.apiKey, added])
        assert.equal((await call({ apikey: key, authorization: `Bearer ${tok}` })).statusCode, 200);
      const rot = await t.admin('POST', '/admin/v1/signing-keys');
      assert.equal(rot.statusCode, 200);
      const newTok = await accessToken(t.app, credentials);
      const kid = JSON.parse(Buffer.from(newTok.split('.')[0]!, 'base64url').toString()).kid;
      assert.equal(kid, rot.json().kid);
      assert.equal(
        (await call({ apikey: added, authorization: `Bearer ${tok}` })).statusCode,
        200,
        'old-key token still valid',
      );
      assert.equal((await call({ apikey: added, authorization: `Bearer ${newTok}` })).statusCode, 200);
    });

    it('403 for a suspended merchant: no token, no calls; reactivation restores access', async () => {
      const { credentials } = await createMerchant(t);
      const tok = await accessToken(t.app, credentials);
      assert.equal(
        (await t.admin('PATCH', `/admin/v1/merchants/${credentials.clientId}`, { status: 'suspended' })).statusCode,
        200,
      );
      const res = await call({ apikey: credentials.apiKey, authorization: `Bearer ${tok}` });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().systemCode, 'create-payment.403.001');
      const tr = await tokenRequest(credentials.apiKey, {
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
      });
      assert.equal(tr.statusCode, 403);
      assert.equal(tr.json().systemCode, 'access-token.403.001');
      await t.admin('PATCH', `/admin/v1/merchants/${credentials.clientId}`, { status: 'active' });
      assert.equal((await call({ apikey: credentials.apiKey, authorization: `Bearer ${tok}` })).statusCode, 200);
    });
  });
}

// Parallel guesses must never check more secrets than the limit, however they spread over the
// gateway's processes: each attempt reserves its place in one counting statement first.
for (const backend of BACKENDS) {
  describe(`brute-force limit under concurrency [${backend}]`, () => {
    it('checks at most the limit of 60 parallel wrong secrets for one client_id, across processes', {
      timeout: 60_000,
    }, async () => {
      const t = await startTestGateway(backend, { KARIBCHE_AUTH_FAILURE_LIMIT: '10' });
      const second = backend === 'postgres' ? await secondGateway(t, { KARIBCHE_AUTH_FAILURE_LIMIT: '10' }) : null;
      try {
        const { credentials: c } = await createMerchant(t);
        const apps = second ? [t.app, second.app] : [t.app];
        const results = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            apps[i % apps.length]!.inject({
              method: 'POST',
              url: '/v1/gateway/access-token',
              headers: { apikey: c.apiKey, 'content-type': 'application/json' },
              payload: { client_id: c.clientId, client_secret: `guess-${i}` },
            }),
          ),
        );
        const codes = results.map((r) => r.statusCode);
        assert.equal(codes.filter((c) => c === 400).length, 10, `secrets checked: ${JSON.stringify(codes)}`);
        assert.equal(codes.filter((c) => c === 429).length, 50);
        const { rows } = await t.gw.services.db.query<{ failures: number; pending: number }>(
          'SELECT failures, pending FROM auth_failures WHERE key = $1',
          [`cid:${c.clientId}`],
        );
        assert.deepEqual(rows, [{ failures: 10, pending: 0 }]);
      } finally {
        if (second) {
          await second.close();
          await second.services.db.close();
        }
        await t.close();
      }
    });
  });
}
