// One presenter per medium: whatever a route throws is a catalogue error, answered as problem JSON
// on the API, the sandbox and the admin API, and as the one HTML error page (in the surface's layout
// and words) on the checkout and the dashboard. Each surface here gets the same three failures: a
// catalogue error its code throws (not found), a client's mistake the framework finds (a body over
// the limit: 413), and an error nobody expected (500, its message never shown).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { TEXTS as CHECKOUT } from '../checkout/i18n.ts';
import { TEXTS as DASHBOARD } from '../dashboard/i18n.ts';
import { ERRORS, systemCode, type ErrorDef, type Operation } from '../errors/catalogue.ts';
import { BACKENDS } from '../testing/databases.ts';
import { DashboardBrowser, createDashboardUser, mainText } from '../testing/dashboard.ts';
import { ADMIN_TOKEN, basicPayment, useGateway } from '../testing/harness.ts';

const SECRET = 'internal detail that must never reach a client';
const TOO_LARGE = 'x'.repeat(70 * 1024);
const UNKNOWN_PAY_ID = 'a'.repeat(32);

function assertProblem(res: LightMyRequestResponse, op: Operation, def: ErrorDef, where: string): void {
  assert.equal(res.statusCode, def.status, `${where}: ${res.body.slice(0, 300)}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, where);
  const body = res.json();
  assert.equal(body.systemCode, systemCode(op, def), where);
  assert.equal(body.status, String(def.status), where);
  assert.equal(body.title, def.title, where);
  assert.equal(body.requestId, res.headers['x-request-id'], where);
  assert.ok(!res.body.includes(SECRET), `${where}: leaks the error's message`);
}

function assertPage(res: LightMyRequestResponse, status: number, words: string, where: string): void {
  assert.equal(res.statusCode, status, `${where}: ${mainText(res.body).slice(0, 300)}`);
  assert.match(String(res.headers['content-type']), /^text\/html/, where);
  assert.equal(res.headers['cache-control'], 'no-store', where);
  assert.match(String(res.headers['content-security-policy']), /default-src 'none'/, where);
  assert.ok(mainText(res.body).includes(words), `${where}: says "${words}" — ${mainText(res.body).slice(0, 300)}`);
  assert.ok(!res.body.includes(SECRET), `${where}: leaks the error's message`);
}

for (const backend of BACKENDS) {
  describe(`one error presenter per medium [${backend}]`, () => {
    const ctx = useGateway(backend);

    /** Runs `fn` while every read of `table` fails with an error nobody expected (on the pool and the shared reads). */
    async function whileReadsFail<R>(table: 'payments' | 'merchants', fn: () => Promise<R>): Promise<R> {
      const { db, reads } = ctx.t.gw.services;
      const originals = [db.query, reads.query] as const;
      const pattern = new RegExp(`\\bFROM ${table}\\b`, 'i');
      const failing = (query: typeof db.query) =>
        function (this: unknown, sql: string, ...rest: unknown[]) {
          if (pattern.test(sql)) return Promise.reject(new Error(SECRET));
          return (query as (...a: unknown[]) => ReturnType<typeof query>).call(this, sql, ...rest);
        } as typeof query;
      db.query = failing(originals[0]);
      if (reads !== db) reads.query = failing(originals[1]);
      try {
        return await fn();
      } finally {
        [db.query, reads.query] = originals;
      }
    }
    const whilePaymentsFail = <R>(fn: () => Promise<R>) => whileReadsFail('payments', fn);

    const admin = (method: 'GET' | 'POST', url: string, payload?: string) =>
      ctx.t.app.inject({
        method,
        url,
        payload,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      });

    it('API: problem JSON for a catalogue error, a client error and an unknown error', async () => {
      assertProblem(
        await ctx.m.get(`/v1/gateway/payments/${UNKNOWN_PAY_ID}`),
        'get-payment',
        ERRORS.paymentNotFound,
        'api catalogue',
      );
      assertProblem(
        await ctx.m.post('/v1/gateway/payments', TOO_LARGE),
        'create-payment',
        ERRORS.payloadTooLarge,
        'api client',
      );
      const payId = (await ctx.m.createPayment(basicPayment())).json().payId as string;
      const res = await whilePaymentsFail(() => ctx.m.get(`/v1/gateway/payments/${payId}`));
      assertProblem(res, 'get-payment', ERRORS.internal, 'api unknown');
      assert.equal(res.json().detail, `Internal error (request id ${res.headers['x-request-id']})`);
    });

    it('sandbox and admin: the same problem JSON', async () => {
      assertProblem(
        await admin(
          'POST',
          `/sandbox/v1/payments/${UNKNOWN_PAY_ID}/simulate`,
          JSON.stringify({ card: '4111111111111111' }),
        ),
        'sandbox',
        ERRORS.paymentNotFound,
        'sandbox catalogue',
      );
      assertProblem(
        await admin('POST', '/sandbox/v1/clock', TOO_LARGE),
        'sandbox',
        ERRORS.payloadTooLarge,
        'sandbox client',
      );
      const payId = (await ctx.m.createPayment(basicPayment())).json().payId as string;
      assertProblem(
        await whilePaymentsFail(() =>
          admin('POST', `/sandbox/v1/payments/${payId}/simulate`, JSON.stringify({ card: '4111111111111111' })),
        ),
        'sandbox',
        ERRORS.internal,
        'sandbox unknown',
      );

      assertProblem(
        await admin('GET', '/admin/v1/merchants/no-such-merchant'),
        'admin',
        ERRORS.merchantNotFound,
        'admin catalogue',
      );
      assertProblem(
        await admin('POST', '/admin/v1/merchants', TOO_LARGE),
        'admin',
        ERRORS.payloadTooLarge,
        'admin client',
      );
      assertProblem(
        await whileReadsFail('merchants', () => admin('GET', `/admin/v1/merchants/${ctx.m.credentials.clientId}`)),
        'admin',
        ERRORS.internal,
        'admin unknown',
      );
    });

    it('checkout: the one error page, in its layout and words', async () => {
      const t = CHECKOUT.en;
      assertPage(
        await ctx.t.app.inject({ method: 'GET', url: `/checkout/${UNKNOWN_PAY_ID}?lang=en` }),
        404,
        t.notFoundText,
        'checkout catalogue',
      );
      const payId = (await ctx.m.createPayment(basicPayment())).json().payId as string;
      const large = await ctx.t.app.inject({
        method: 'POST',
        url: `/checkout/${payId}/pay?lang=en`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `method=5&holder=${TOO_LARGE}`,
      });
      assertPage(large, 413, t.error, 'checkout client');
      const unknown = await whilePaymentsFail(() =>
        ctx.t.app.inject({ method: 'GET', url: `/checkout/${payId}?lang=en` }),
      );
      assertPage(unknown, 500, t.error, 'checkout unknown');
      assert.match(unknown.body, /<html lang="en">/);
      assert.match(unknown.body, /class="trust"/, 'the checkout’s layout');
    });

    it('dashboard: the one error page, in its layout and words', async () => {
      const t = DASHBOARD.en;
      const login = await createDashboardUser(ctx.t, ctx.m.credentials.clientId);
      const b = await DashboardBrowser.signedIn(ctx.t, login, '10.8.0.1');
      assertPage(await b.get(`/dashboard/payments/${UNKNOWN_PAY_ID}?lang=en`), 404, t.notFound, 'dashboard catalogue');
      assertPage(
        await b.post('/dashboard/settings?lang=en', { csrf: await b.csrf(), name: TOO_LARGE }),
        413,
        t.badRequest,
        'dashboard client',
      );
      const payId = (await ctx.m.createPayment(basicPayment())).json().payId as string;
      const unknown = await whilePaymentsFail(() => b.get(`/dashboard/payments/${payId}?lang=en`));
      assertPage(unknown, 500, t.internal, 'dashboard unknown');
      assert.ok(
        mainText(unknown.body).includes(String(unknown.headers['x-request-id'])),
        'with the request id to quote',
      );
      assert.match(unknown.body, /class="sections"/, 'the dashboard’s layout, signed in');
    });
  });
}
