import assert from 'node:assert/strict';
import net from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import {
  MerchantClient,
  TEST_ACQUIRER_MODULE,
  accessToken,
  basicPayment,
  createPaid,
  startTestGateway,
  useGateway,
} from '../testing/harness.ts';
import { Receiver } from '../testing/receiver.ts';
import { untilAsleep } from '../testing/wait.ts';
import { DatabaseUnavailableError } from '../store/db.ts';
import { attemptPayment } from '../payments/attempt.ts';
import { isNonPublicAddress } from './address-guard.ts';
import { sendCallback } from './send.ts';

/** How a merchant verifies a callback with nothing but node:crypto (the README shows the same code). */
function verify(
  secret: string,
  header: string,
  rawBody: string,
  toleranceSeconds = Infinity,
  now = Date.now() / 1000,
): boolean {
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isFinite(t) || Math.abs(now - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return parts
    .filter(([k]) => k === 'v1')
    .some(([, v]) => {
      const given = Buffer.from(v, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

const CALLBACK_TIMEOUT_MS = 5_000;

for (const backend of BACKENDS) {
  describe(`callbacks [${backend}]`, () => {
    // A deadline no local answer misses on a loaded machine (a 400 ms one did): only 'hang' meets it.
    const ctx = useGateway(backend, { KARIBCHE_CALLBACK_TIMEOUT_MS: String(CALLBACK_TIMEOUT_MS) });
    let rx: Receiver;
    before(async () => {
      rx = await new Receiver().start();
    });
    after(() => rx.stop());

    const payWith = (over: Record<string, unknown>, card?: string) => createPaid(ctx.t, ctx.m, over, card);
    const drain = () => ctx.t.gw.services.callbacks.drain();
    const advance = async (seconds: number) => {
      await ctx.t.gw.services.sharedClock.advance(seconds);
    };
    const log = async (payId: string) => {
      ctx.m.token = await accessToken(ctx.t.app, ctx.m.credentials);
      const res = await ctx.m.get(`/v1/gateway/payments/${payId}/callbacks`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().callbacks as any[];
    };

    it('posts {"PaymentId"} with id, sequence and a signature an independent verifier accepts', async () => {
      rx.answers = [200];
      const before = rx.received.length;
      const id = await payWith({ callbackUrl: rx.url });
      await drain();
      assert.equal(rx.received.length, before + 1);
      const got = rx.received.at(-1)!;
      assert.equal(got.method, 'POST');
      assert.equal(got.body, JSON.stringify({ PaymentId: id }));
      assert.equal(got.headers['content-type'], 'application/json');
      assert.match(String(got.headers['x-callback-id']), /^evt_\d+$/);
      assert.equal(got.headers['x-callback-sequence'], '2');
      const sig = String(got.headers['x-callback-signature']);
      assert.match(sig, /^t=\d+,v1=[0-9a-f]{64}$/);
      assert.ok(verify(ctx.m.credentials.callbackSecret, sig, got.body, 300));
      assert.ok(!verify('whsec_wrong', sig, got.body));
      assert.ok(!verify(ctx.m.credentials.callbackSecret, sig, got.body.replace(id, 'x')));
      // The same callback verifies with the Standard Webhooks reference library and the secret as given.
      assert.match(ctx.m.credentials.callbackSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      const standard = {
        'webhook-id': String(got.headers['webhook-id']),
        'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      };
      assert.equal(standard['webhook-id'], got.headers['x-callback-id']);
      assert.deepEqual(new Webhook(ctx.m.credentials.callbackSecret).verify(got.body, standard), { PaymentId: id });
      assert.throws(() => new Webhook(ctx.m.credentials.callbackSecret).verify(got.body.replace(id, 'x'), standard));
      assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got.body, standard));
      const [cb] = await log(id);
      assert.equal(cb.status, 'delivered');
      assert.equal(cb.paymentStatus, 'Succeeded');
      assert.equal(cb.callbackId, got.headers['x-callback-id']);
      assert.deepEqual(
        cb.attemptLog.map((a: any) => [a.attempt, a.httpStatus, a.response]),
        [[1, 200, 'ok']],
      );
    });

    it('signs with real time even after the sandbox clock moved hours ahead, so the README recipe accepts it', async () => {
      rx.answers = [200];
      await advance(6 * 3600);
      const before = rx.received.length;
      const id = await payWith({ callbackUrl: rx.url });
      await drain();
      assert.equal(rx.received.length, before + 1);
      const got = rx.received.at(-1)!;
      assert.equal(got.body, JSON.stringify({ PaymentId: id }));
      const sig = String(got.headers['x-callback-signature']);
      const t = Number(/t=(\d+)/.exec(sig)![1]);
      assert.ok(
        Math.abs(t - Date.now() / 1000) < 60,
        `t=${t} is real time, not the sandbox clock (${ctx.t.clock.now().toISOString()})`,
      );
      assert.ok(
        verify(ctx.m.credentials.callbackSecret, sig, got.body, 300),
        'verified with a 5-minute tolerance against real time',
      );
    });

    it('sends callbacks only under registered addresses matched as parsed URLs: create, default URL, test callback and redelivery alike', async () => {
      rx.answers = [200];
      const port = rx.port;
      const home = `http://127.0.0.1:${port}/callbacks`;
      const m = await MerchantClient.create(ctx.t, { callbackUrlPrefixes: [home, 'http://localhost'] });
      const code = async (res: { statusCode: number; json(): any }) => [res.statusCode, res.json().systemCode];
      // String prefixes of a registered address that lead elsewhere.
      for (const [url, expected] of [
        ['http://localhost.attacker.example/cb', 'create-payment.400.016'],
        [`http://127.0.0.1:${port}@127.0.0.1:${port + 1}/callbacks`, 'create-payment.400.001'],
        [`http://127.0.0.1:${port}/callbacksx`, 'create-payment.400.016'],
        [`http://127.0.0.1:${port + 1}/callbacks`, 'create-payment.400.016'],
      ] as const) {
        assert.deepEqual(await code(await m.createPayment(basicPayment({ callbackUrl: url }))), [400, expected], url);
      }
      const clientId = m.credentials.clientId;
      // Every other entry point that names a callback target: the same rule, the same verdicts.
      const receivedBefore = rx.received.length;
      for (const [url, nnn] of [
        ['http://localhost.attacker.example/cb', '016'],
        [`http://127.0.0.1:${port}@127.0.0.1:${port + 1}/callbacks`, '001'],
      ] as const) {
        assert.deepEqual(
          await code(await ctx.t.admin('PATCH', `/admin/v1/merchants/${clientId}`, { defaultCallbackUrl: url })),
          [400, `admin.400.${nnn}`],
          url,
        );
        assert.deepEqual(
          await code(await ctx.t.admin('POST', '/sandbox/v1/callbacks/test', { clientId, url })),
          [400, `sandbox.400.${nnn}`],
          url,
        );
        assert.deepEqual(
          await code(await m.post('/sandbox/v1/callbacks/conformance', { url })),
          [400, `sandbox.400.${nnn}`],
          url,
        );
        const merchant = (await ctx.t.admin('GET', `/admin/v1/merchants/${clientId}`)).json();
        assert.equal(merchant.defaultCallbackUrl, null, 'nothing changed');
      }
      assert.equal(rx.received.length, receivedBefore, 'nothing was sent to any of them');
      assert.equal(
        (await ctx.t.admin('PATCH', `/admin/v1/merchants/${clientId}`, { defaultCallbackUrl: `${home}/default` }))
          .statusCode,
        200,
      );

      // Redelivery resolves the URL again: once the address is removed, nothing goes there.
      const id = (await m.createPayment(basicPayment({ callbackUrl: `${home}/orders?id=7` }))).json().payId;
      await ctx.t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' });
      await drain();
      assert.equal(rx.received.at(-1)!.path, '/callbacks/orders?id=7');
      const before = rx.received.length;
      assert.equal(
        (
          await ctx.t.admin('PATCH', `/admin/v1/merchants/${clientId}`, {
            callbackUrlPrefixes: ['http://localhost'],
            defaultCallbackUrl: null,
          })
        ).statusCode,
        200,
      );
      const re = await m.post(`/v1/gateway/payments/${id}/callbacks/redeliver`, {});
      assert.equal(re.statusCode, 202, re.body);
      assert.equal(re.json().status, 'undeliverable');
      await drain();
      assert.equal(rx.received.length, before, 'nothing sent to the removed address');

      // A hostile URL stored by hand (an older gateway's prefix match let it in): redelivery and the
      // dispatcher both refuse it through the same resolver.
      await ctx.t.admin('PATCH', `/admin/v1/merchants/${clientId}`, {
        callbackUrlPrefixes: [home, 'http://localhost'],
      });
      for (const url of [
        'http://localhost.attacker.example/cb',
        `http://127.0.0.1:${port}@127.0.0.1:${port + 1}/callbacks`,
      ]) {
        await ctx.t.gw.services.db.query('UPDATE payments SET callback_url = $2 WHERE pay_id = $1', [id, url]);
        const again = await m.post(`/v1/gateway/payments/${id}/callbacks/redeliver`, {});
        assert.deepEqual([again.statusCode, again.json().status], [202, 'undeliverable'], url);
      }
      await drain();
      assert.equal(rx.received.length, before, 'nothing sent to a hostile stored URL');
    });

    it('sends the first delivery where redelivery would: the default URL once the payment’s own address is removed', async () => {
      rx.answers = [200];
      const home = `http://127.0.0.1:${rx.port}/callbacks`;
      const m = await MerchantClient.create(ctx.t, {
        callbackUrlPrefixes: [`${home}/orders`, `${home}/default`],
        defaultCallbackUrl: `${home}/default`,
      });
      const id = (await m.createPayment(basicPayment({ callbackUrl: `${home}/orders/9` }))).json().payId;
      // The address the payment named is removed before its final status.
      const patched = await ctx.t.admin('PATCH', `/admin/v1/merchants/${m.credentials.clientId}`, {
        callbackUrlPrefixes: [`${home}/default`],
      });
      assert.equal(patched.statusCode, 200, patched.body);
      const before = rx.received.length;
      await ctx.t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' });
      await drain();
      assert.deepEqual(
        rx.received.slice(before).map((r) => r.path),
        ['/callbacks/default'],
      );
      const log = (await m.get(`/v1/gateway/payments/${id}/callbacks`)).json();
      const attempts = JSON.stringify(log);
      assert.ok(attempts.includes(`${home}/default`), `the attempt records where it went: ${attempts}`);
      // Redelivery goes to the same place.
      await m.post(`/v1/gateway/payments/${id}/callbacks/redeliver`, {});
      await drain();
      assert.deepEqual(
        rx.received.slice(before).map((r) => r.path),
        ['/callbacks/default', '/callbacks/default'],
      );
    });

    it('retries after a 500 on the schedule and then delivers', async () => {
      rx.answers = [500, 200];
      const id = await payWith({ callbackUrl: rx.url });
      await drain();
      let [cb] = await log(id);
      assert.equal(cb.status, 'pending');
      assert.equal(
        new Date(cb.nextAttemptAt).getTime() - new Date(cb.attemptLog[0].startedAt).getTime() >= 59_000,
        true,
      );
      await drain(); // not due yet
      assert.equal((await log(id))[0].attempts, 1);
      await advance(60);
      await drain();
      [cb] = await log(id);
      assert.equal(cb.status, 'delivered');
      assert.deepEqual(
        cb.attemptLog.map((a: any) => a.httpStatus),
        [500, 200],
      );
    });

    it('keeps retrying while the receiver is down, following 1m 5m 15m 30m 1h 2h 4h 8h 8h, then delivers when it is back', async () => {
      const down = await new Receiver().start();
      const port = down.port;
      const url = down.url;
      await down.stop();
      const id = await payWith({ callbackUrl: url });
      await drain();
      const schedule = [60, 300, 900, 1800, 3600, 7200, 14400, 28800, 28800];
      for (const seconds of schedule) {
        const [cb] = await log(id);
        assert.equal(cb.status, 'pending');
        const last = cb.attemptLog.at(-1);
        assert.match(last.error, /ECONNREFUSED/);
        const wait = Math.round((new Date(cb.nextAttemptAt).getTime() - new Date(last.startedAt).getTime()) / 1000);
        assert.ok(Math.abs(wait - seconds) <= 1, `after attempt ${cb.attempts}: waited ${wait}s, expected ${seconds}s`);
        await advance(seconds);
        await drain();
      }
      const up = await new Receiver().start(port);
      try {
        await advance(28800);
        await drain();
        const [cb] = await log(id);
        assert.equal(cb.status, 'delivered');
        assert.equal(cb.attempts, schedule.length + 2);
        assert.equal(up.received.length, 1);
      } finally {
        await up.stop();
      }
    });

    it('gives up after 3 days and marks the callback failed', async () => {
      rx.answers = [503];
      const id = await payWith({ callbackUrl: rx.url });
      await drain();
      for (let i = 0; i < 20; i++) {
        await advance(8 * 3600);
        await drain();
      }
      const [cb] = await log(id);
      assert.equal(cb.status, 'failed');
      assert.ok(cb.attempts >= 9 && cb.attempts <= 12, String(cb.attempts));
      const span = new Date(cb.attemptLog.at(-1).startedAt).getTime() - new Date(cb.createdAt).getTime();
      assert.ok(span <= 3 * 86_400_000, `last attempt ${span / 3_600_000} h after the event`);
      rx.answers = [200];
    });

    it('treats no answer within the deadline as a failed attempt', async () => {
      rx.answers = ['hang', 200];
      const id = await payWith({ callbackUrl: rx.url });
      await drain();
      const [cb] = await log(id);
      assert.equal(cb.status, 'pending');
      assert.match(cb.attemptLog[0].error, new RegExp(`no answer within ${CALLBACK_TIMEOUT_MS} ms`));
      assert.ok(cb.attemptLog[0].durationMs >= CALLBACK_TIMEOUT_MS - 10);
      rx.answers = [200];
    });

    it('uses the merchant default URL; with neither URL the event is undeliverable until one is set and redelivered', async () => {
      const plain = await MerchantClient.create(ctx.t, { callbackUrlPrefixes: ['http://127.0.0.1:*'] });
      const id = (await plain.createPayment(basicPayment())).json().payId;
      await ctx.t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' });
      await drain();
      let cbs = (await plain.get(`/v1/gateway/payments/${id}/callbacks`)).json().callbacks;
      assert.equal(cbs[0].status, 'undeliverable');
      assert.equal(cbs[0].url, null);
      await ctx.t.admin('PATCH', `/admin/v1/merchants/${plain.credentials.clientId}`, { defaultCallbackUrl: rx.url });
      const before = rx.received.length;
      const re = await plain.post(`/v1/gateway/payments/${id}/callbacks/redeliver`, {});
      assert.equal(re.statusCode, 202, re.body);
      assert.equal(re.json().status, 'pending');
      await drain();
      assert.equal(rx.received.length, before + 1);
      cbs = (await plain.get(`/v1/gateway/payments/${id}/callbacks`)).json().callbacks;
      assert.equal(cbs[0].status, 'delivered');
      assert.equal(cbs[0].url, rx.url);
    });

    it('redelivers a delivered callback with the same X-Callback-Id; nothing to redeliver before a final status', async () => {
      const id = await payWith({ callbackUrl: rx.url });
      await drain();
      const first = rx.received.at(-1)!;
      ctx.m.token = await accessToken(ctx.t.app, ctx.m.credentials);
      assert.equal((await ctx.m.post(`/v1/gateway/payments/${id}/callbacks/redeliver`, {})).statusCode, 202);
      await drain();
      const again = rx.received.at(-1)!;
      assert.notEqual(again, first);
      assert.equal(again.headers['x-callback-id'], first.headers['x-callback-id']);
      const fresh = (await ctx.m.createPayment(basicPayment({ callbackUrl: rx.url }))).json().payId;
      const none = await ctx.m.post(`/v1/gateway/payments/${fresh}/callbacks/redeliver`, {});
      assert.equal(none.statusCode, 400);
      assert.equal(none.json().systemCode, 'callbacks.400.040');
      const other = await MerchantClient.create(ctx.t);
      assert.equal((await other.get(`/v1/gateway/payments/${id}/callbacks`)).json().systemCode, 'callbacks.404.001');
      assert.equal((await other.post(`/v1/gateway/payments/${id}/callbacks/redeliver`, {})).statusCode, 404);
    });

    it('sends a callback for every final status, including expiry and failure, in sequence', async () => {
      rx.answers = [200];
      const expiring = (await ctx.m.createPayment(basicPayment({ callbackUrl: rx.url, expirationMinutes: 1 }))).json()
        .payId;
      await advance(61);
      await ctx.t.gw.services.sweeper.sweep();
      const failing = (await ctx.m.createPayment(basicPayment({ callbackUrl: rx.url }))).json().payId;
      for (let i = 0; i < 3; i++)
        await ctx.t.admin('POST', `/sandbox/v1/payments/${failing}/simulate`, { card: '4000000000000002' });
      await drain();
      const bodies = rx.received.map((r) => r.body);
      assert.ok(bodies.includes(JSON.stringify({ PaymentId: expiring })));
      assert.ok(bodies.includes(JSON.stringify({ PaymentId: failing })));
      assert.equal((await log(expiring))[0].paymentStatus, 'Expired');
      const f = await log(failing);
      assert.equal(f.length, 1, 'declines with attempts left are not final: one callback');
      assert.equal(f[0].paymentStatus, 'Failed');
      assert.equal(f[0].sequence, 6);
    });

    it('signs with both secrets while a rotation is in progress', async () => {
      const old = ctx.m.credentials.callbackSecret;
      const rot = await ctx.t.admin('POST', `/admin/v1/merchants/${ctx.m.credentials.clientId}/callback-secret`);
      const fresh = rot.json().callbackSecret;
      await payWith({ callbackUrl: rx.url });
      await drain();
      const got = rx.received.at(-1)!;
      const sig = String(got.headers['x-callback-signature']);
      assert.match(sig, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      assert.ok(verify(old, sig, got.body));
      assert.ok(verify(fresh, sig, got.body));
      // The Standard Webhooks header carries the same two signatures, space-separated: the
      // reference library accepts the callback with either secret.
      const standard = (r: (typeof rx.received)[number]) => ({
        'webhook-id': String(r.headers['webhook-id']),
        'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      });
      assert.match(standard(got)['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual(new Webhook(old).verify(got.body, standard(got)), JSON.parse(got.body));
      assert.deepEqual(new Webhook(fresh).verify(got.body, standard(got)), JSON.parse(got.body));
      ctx.m.credentials.callbackSecret = fresh;
      await advance(24 * 3600 + 1);
      await payWith({ callbackUrl: rx.url });
      await drain();
      const later = String(rx.received.at(-1)!.headers['x-callback-signature']);
      assert.match(later, /^t=\d+,v1=[0-9a-f]{64}$/, 'the old secret stops signing after 24 h');
      assert.ok(verify(fresh, later, rx.received.at(-1)!.body));
      const last = rx.received.at(-1)!;
      assert.match(standard(last)['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual(new Webhook(fresh).verify(last.body, standard(last)), JSON.parse(last.body));
      assert.throws(() => new Webhook(old).verify(last.body, standard(last)), 'the old secret no longer verifies');
    });

    it('logs the first 1 KiB of the answer', async () => {
      rx.responseBody = 'x'.repeat(5000);
      const id = await payWith({ callbackUrl: rx.url });
      await drain();
      rx.responseBody = 'ok';
      assert.equal((await log(id))[0].attemptLog[0].response.length, 1024);
    });

    it('sends a signed test callback from the sandbox', async () => {
      const res = await ctx.t.admin('POST', '/sandbox/v1/callbacks/test', {
        clientId: ctx.m.credentials.clientId,
        url: rx.url,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().httpStatus, 200);
      const got = rx.received.at(-1)!;
      assert.equal(got.body, JSON.stringify({ PaymentId: res.json().paymentId }));
      assert.ok(verify(ctx.m.credentials.callbackSecret, String(got.headers['x-callback-signature']), got.body));
      const bad = await ctx.t.admin('POST', '/sandbox/v1/callbacks/test', {
        clientId: ctx.m.credentials.clientId,
        url: 'http://evil.example/',
      });
      assert.equal(bad.json().systemCode, 'sandbox.400.016');
    });
  });
}

/**
 * With a 60 s poll, a callback delivered within this was woken by its notification (or a claim
 * retry): far from both the poll and any slowness of a loaded machine.
 */
const WAKE_WITHIN_MS = 20_000;

for (const backend of BACKENDS) {
  describe(`callback wake-up when idle [${backend}]`, () => {
    it("delivers on the wake-up of a final status change's commit though the poll is 60 s, one callback or a burst", async () => {
      const logs: string[] = [];
      const t = await startTestGateway(
        backend,
        { KARIBCHE_CALLBACK_POLL_MS: '60000', KARIBCHE_SWEEP_INTERVAL_MS: '60000', LOG_LEVEL: 'warn' },
        { background: true, logStream: { write: (l) => void logs.push(l) } },
      );
      const rx = await new Receiver().start();
      try {
        const m = await MerchantClient.create(t);
        const id = (await m.createPayment(basicPayment({ callbackUrl: rx.url }))).json().payId;
        await untilAsleep(t.gw.services.callbacks);
        await t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' });
        // Far sooner than the 60 s poll, however slow the machine: only the notification explains it.
        await rx.waitFor(1, WAKE_WITHIN_MS);

        // A burst: notifications that arrive while the dispatcher is busy claiming must not be
        // lost (each would otherwise wait for the 60 s poll).
        const ids: string[] = [];
        for (let i = 0; i < 60; i++)
          ids.push((await m.createPayment(basicPayment({ callbackUrl: rx.url }))).json().payId);
        await Promise.all(
          ids.map((p) => t.admin('POST', `/sandbox/v1/payments/${p}/simulate`, { card: '4111111111111111' })),
        );
        await rx.waitFor(61, WAKE_WITHIN_MS).catch(async (err) => {
          const { rows } = await t.gw.services.db.query(
            `SELECT status, attempts, count(*)::int AS n, min(lease_until) AS lease FROM callback_deliveries GROUP BY 1, 2`,
          );
          throw new Error(
            `${err.message}; deliveries ${JSON.stringify(rows)}; warnings: ${logs.join('').slice(-3_000)}`,
          );
        });
      } finally {
        await rx.stop();
        await t.close();
      }
    });

    it('retries a failed claim within a moment, though its wake-up is spent and the poll is 60 s', async () => {
      const t = await startTestGateway(
        backend,
        { KARIBCHE_CALLBACK_POLL_MS: '60000', KARIBCHE_SWEEP_INTERVAL_MS: '60000' },
        { background: true },
      );
      const rx = await new Receiver().start();
      // The dispatcher claims through connections of its own.
      const db = t.gw.services.callbacks.q;
      const query = db.query;
      let failed = 0;
      try {
        const m = await MerchantClient.create(t);
        const id = (await m.createPayment(basicPayment({ callbackUrl: rx.url }))).json().payId;
        await untilAsleep(t.gw.services.callbacks);
        // The next two claims fail as if the database were away for a moment.
        db.query = ((sql: string, params?: readonly unknown[], name?: string) => {
          if (name === 'claim_callbacks' && failed < 2) {
            failed++;
            return Promise.reject(new DatabaseUnavailableError(new Error('Connection terminated unexpectedly')));
          }
          return query.call(db, sql, params, name);
        }) as typeof db.query;
        await t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' });
        await rx.waitFor(1, WAKE_WITHIN_MS);
        assert.equal(failed, 2);
      } finally {
        db.query = query;
        await rx.stop();
        await t.close();
      }
    });
  });
}

describe('callback sending', () => {
  it('sends again on a new connection when the merchant closed the kept-alive one as the request went out', async () => {
    // A merchant that answers the first request and keeps the connection, then closes it on the
    // next request without reading it (what a server's keep-alive timeout does at the wrong moment).
    let connections = 0;
    const requests: string[] = [];
    const server = net.createServer((socket) => {
      const n = ++connections;
      let served = 0;
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
        requests.push(`connection ${n}`);
        if (n === 1 && ++served === 2) return void socket.destroy();
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/cb`;
    const meta = { callbackId: 'evt_1', sequence: 1, secrets: ['whsec_test'], timestamp: 1 };
    const opts = { timeoutMs: 2_000, guard: false };
    try {
      assert.equal((await sendCallback(url, 'pay-1', meta, opts)).httpStatus, 200);
      const second = await sendCallback(url, 'pay-2', meta, opts);
      assert.deepEqual([second.httpStatus, second.error], [200, null]);
      assert.deepEqual(requests, ['connection 1', 'connection 1', 'connection 2']);
    } finally {
      server.close();
      server.unref();
    }
  });
});

describe('callback address guard', () => {
  it('knows non-public addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
      'not-an-ip',
    ]) {
      assert.equal(isNonPublicAddress(a), true, a);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])
      assert.equal(isNonPublicAddress(a), false, a);
  });
});

describe('production mode', () => {
  it('refuses callback hosts on loopback or private addresses', async () => {
    const t = await startTestGateway(BACKENDS[0]!, {
      KARIBCHE_MODE: 'production',
      KARIBCHE_CALLBACK_TIMEOUT_MS: '1000',
      KARIBCHE_ACQUIRER_MODULE: TEST_ACQUIRER_MODULE,
    });
    const rx = await new Receiver().start();
    try {
      const m = await MerchantClient.create(t, { callbackUrlPrefixes: ['http://127.0.0.1:*', 'http://localhost:*'] });
      const s = t.gw.services;
      for (const url of [rx.url, rx.url.replace('127.0.0.1', 'localhost')]) {
        const id = (await m.createPayment(basicPayment({ callbackUrl: url }))).json().payId;
        await attemptPayment(s, id, {
          method: 5,
          card: { number: '4111111111111111', expMonth: 12, expYear: 2030, securityCode: '123', holder: 'A' },
        });
        await s.callbacks.drain();
        const cbs = (await m.get(`/v1/gateway/payments/${id}/callbacks`)).json().callbacks;
        assert.equal(cbs[0].status, 'pending');
        assert.match(cbs[0].attemptLog[0].error, /non-public/);
      }
      assert.equal(rx.received.length, 0, 'nothing reached the private address');
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/sandbox/v1/callbacks/test' })).statusCode,
        404,
        'no sandbox endpoints in production',
      );
    } finally {
      await rx.stop();
      await t.close();
    }
  });
});
