import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { apiSecurityHeaders } from '../api/security-headers.ts';
import { Clock } from '../clock.ts';
import { loadConfig } from '../config.ts';
import { createGateway } from '../gateway.ts';
import { createLogger } from '../logger.ts';
import { BACKENDS, openTestDb } from '../testing/databases.ts';
import { MerchantClient, basicPayment, startTestGateway, type TestGateway } from '../testing/harness.ts';

for (const backend of BACKENDS) {
  describe(`operations endpoints [${backend}]`, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(backend);
    });
    after(() => t.close());

    it('answers liveness, readiness and Prometheus metrics', async () => {
      assert.deepEqual((await t.app.inject('/healthz')).json(), { status: 'ok', pid: process.pid });
      assert.deepEqual((await t.app.inject('/readyz')).json(), { status: 'ready', database: backend });
      const m = await MerchantClient.create(t);
      await m.createPayment(basicPayment());
      const metrics = await t.app.inject('/metrics');
      assert.equal(metrics.statusCode, 200);
      assert.match(
        metrics.body,
        /karibche_http_request_duration_seconds_bucket\{.*route="\/v1\/gateway\/payments".*status="200"/,
      );
      assert.match(metrics.body, /karibche_payments_created_total 1/);
      assert.match(metrics.body, /karibche_process_resident_memory_bytes/);
    });

    it('answers unknown routes 404 and wrong methods 405 as problem JSON, with security headers', async () => {
      const nf = await t.app.inject('/v1/gateway/nothing');
      assert.equal(nf.statusCode, 404);
      assert.equal(nf.json().systemCode, 'system.404.004');
      assert.match(String(nf.headers['content-type']), /application\/problem\+json/);
      const na = await t.app.inject({ method: 'PUT', url: '/v1/gateway/payments/abc' });
      assert.equal(na.statusCode, 405);
      assert.equal(na.json().systemCode, 'system.405.001');
      assert.equal(nf.headers['x-content-type-options'], 'nosniff');
      assert.match(String(nf.headers['content-security-policy']), /default-src 'none'/);
      assert.match(String(nf.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.equal(nf.headers['x-frame-options'], 'DENY');
      assert.equal(nf.headers['strict-transport-security'], undefined, 'no HSTS in sandbox');
      assert.equal(nf.headers['referrer-policy'], 'no-referrer');
      assert.match(String(nf.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    });
  });
}

for (const backend of BACKENDS) {
  describe(`server-side failures [${backend}]`, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(backend);
    });
    after(() => t.close());

    it('answers 503 with Retry-After when the database is unreachable or rolled a conflict back, 500 for a bug, both as problem JSON', async () => {
      const m = await MerchantClient.create(t);
      const id = (await m.createPayment(basicPayment())).json().payId;
      // Every way to the database fails alike: the pool and the shared reads' connections.
      const { db, reads } = t.gw.services;
      const originals = [db.query, reads.query] as const;
      const fail = (err: Error) => {
        db.query = reads.query = async () => {
          throw err;
        };
      };
      try {
        fail(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
        const down = await m.getPayment(id);
        assert.equal(down.statusCode, 503);
        assert.equal(down.json().systemCode, 'get-payment.503.001');
        assert.equal(down.headers['retry-after'], '5');
        assert.match(String(down.headers['content-type']), /application\/problem\+json/);
        assert.equal((await t.app.inject('/readyz')).statusCode, 503);
        // A deadlock (or serialisation failure) PostgreSQL rolled back: nothing changed, retry.
        for (const code of ['40P01', '40001', '55P03']) {
          fail(Object.assign(new Error('deadlock detected'), { code }));
          const conflict = await m.getPayment(id);
          assert.equal(conflict.statusCode, 503, code);
          assert.equal(conflict.json().systemCode, 'get-payment.503.001');
          assert.equal(conflict.headers['retry-after'], '1');
          assert.match(conflict.json().detail, /concurrent change .* nothing was changed; retry/);
          const page = await t.app.inject({ method: 'GET', url: `/checkout/${id}` });
          assert.equal(page.statusCode, 503, `checkout ${code}`);
          assert.match(String(page.headers['content-type']), /^text\/html/);
        }
        fail(new Error('unexpected'));
        const bug = await m.getPayment(id);
        assert.equal(bug.statusCode, 500);
        assert.equal(bug.json().systemCode, 'get-payment.500.001');
        assert.ok(!bug.body.includes('unexpected'), 'internal messages are not shown');
      } finally {
        [db.query, reads.query] = originals;
      }
      assert.equal((await m.getPayment(id)).statusCode, 200);
    });
  });
}

describe('security headers', () => {
  it('add HSTS and upgrade-insecure-requests only in production', () => {
    const prod = apiSecurityHeaders('production');
    assert.equal(prod['Strict-Transport-Security'], 'max-age=31536000; includeSubDomains');
    assert.match(prod['Content-Security-Policy']!, /upgrade-insecure-requests/);
    const sandbox = apiSecurityHeaders('sandbox');
    assert.equal(sandbox['Strict-Transport-Security'], undefined);
    assert.doesNotMatch(sandbox['Content-Security-Policy']!, /upgrade-insecure-requests/);
  });
});

describe('logs', () => {
  it('are JSON with request ids and never contain credentials or tokens', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        cb();
      },
    });
    const testDb = await openTestDb(BACKENDS[0]!);
    const config = loadConfig({
      KARIBCHE_DATA_DIR: testDb.dataDir,
      KARIBCHE_ADMIN_TOKEN: 'log-test-admin-token-0123456789',
      LOG_LEVEL: 'debug',
    });
    const gw = await createGateway(config, {
      db: testDb.db,
      clock: new Clock(),
      background: false,
      log: createLogger('debug', sink),
    });
    try {
      const created = await gw.app.inject({
        method: 'POST',
        url: '/admin/v1/merchants',
        headers: { authorization: 'Bearer log-test-admin-token-0123456789' },
        payload: { name: 'Log Shop' },
      });
      const { credentials } = created.json();
      const tok = await gw.app.inject({
        method: 'POST',
        url: '/v1/gateway/access-token',
        headers: { apikey: credentials.apiKey },
        payload: { client_id: credentials.clientId, client_secret: credentials.clientSecret },
      });
      const token = tok.json().access_token;
      await gw.app.inject({
        method: 'POST',
        url: '/v1/gateway/payments',
        headers: { apikey: credentials.apiKey, authorization: `Bearer ${token}` },
        payload: basicPayment(),
      });
      await gw.app.inject({
        method: 'POST',
        url: '/v1/gateway/access-token',
        headers: { apikey: credentials.apiKey },
        payload: { client_id: credentials.clientId, client_secret: 'wrong' },
      });
      const parsed = lines.map((l) => JSON.parse(l));
      // One access line per request, written when the answer is sent, with its request id.
      const access = parsed.filter((l) => l.msg === 'request completed');
      assert.deepEqual(
        access.map((l) => [l.req.method, l.req.url, l.res.statusCode]),
        [
          ['POST', '/admin/v1/merchants', 201],
          ['POST', '/v1/gateway/access-token', 200],
          ['POST', '/v1/gateway/payments', 200],
          ['POST', '/v1/gateway/access-token', 400],
        ],
      );
      assert.ok(access.every((l) => typeof l.reqId === 'string' && typeof l.responseTime === 'number'));
      assert.equal(parsed.filter((l) => l.msg === 'incoming request').length, 0);
      const all = lines.join('\n');
      for (const secret of [
        credentials.clientSecret,
        credentials.apiKey,
        credentials.callbackSecret,
        token,
        'log-test-admin-token-0123456789',
      ]) {
        assert.ok(!all.includes(secret), `a secret leaked into the logs: ${secret.slice(0, 8)}…`);
      }
    } finally {
      await gw.close();
      await testDb.drop();
    }
  });
});
