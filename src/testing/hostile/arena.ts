// The arena both hostile-input suites attack: a gateway with two merchants, targets for every path
// parameter (paid, pre-authorised, open and foreign payments, a saved card, a QR token), a checkout
// CSRF pair, a fingerprint of every table, and the check of the documented error shape.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { isCheckoutPage } from '../../checkout/routes.ts';
import { cardNumbersIn } from '../../payments/card.ts';
import { isDashboardPage } from '../../dashboard/http.ts';
import { DashboardBrowser, fieldOf } from '../dashboard.ts';
import type { Backend } from '../databases.ts';
import {
  ADMIN_TOKEN,
  MerchantClient,
  accessToken,
  basicPayment,
  createMerchant,
  createPaid,
  startTestGateway,
  type TestGateway,
} from '../harness.ts';
import { DASHBOARD_LOGIN, type Endpoint } from './endpoints.ts';

// Rejections that by design leave a trace: the brute-force counter of failed credentials, the
// merchant's request log (written in batches, so also at no fixed moment) and a dashboard session's
// last activity (noted, at most once a minute, by any page the session opens, refused or not).
const NOT_FINGERPRINTED = new Set(['auth_failures', 'merchant_requests', 'dashboard_sessions']);
const DOCUMENTED = fs.readFileSync('docs/ERRORS.md', 'utf8');

export type Target = 'payId' | 'recId' | 'clientId' | 'token';

export interface Arena {
  t: TestGateway;
  /** Every log line the gateway wrote (JSON text, as an operator's log shipper reads it). */
  logs: string[];
  m: MerchantClient;
  otherToken: string;
  /** A merchant with no payments, for the sandbox reset (which would empty the others' targets). */
  bystander: string;
  targets: Record<Target, string[]>;
  csrf: { cookie: string; token: string };
  /** A signed-in dashboard browser of the other merchant (and a spare session for sign-out). */
  dashboard: { cookie: string; csrf: string; signInCsrf: string; spareCookie: string; spareCsrf: string };
  fingerprint(): Promise<string>;
  /** Valid credentials for the endpoint's kind of caller. */
  authHeaders(e: Endpoint): Record<string, string>;
  /** A form's body with the CSRF token its page would carry (checkout, dashboard). */
  withCsrf(e: Endpoint, body: Record<string, unknown>): Record<string, unknown>;
}

export async function openArena(backend: Backend): Promise<Arena> {
  const logs: string[] = [];
  const t = await startTestGateway(
    backend,
    {
      KARIBCHE_CHECKOUT_ATTEMPTS_PER_MINUTE: '1000000',
      KARIBCHE_TOKEN_REQUESTS_PER_MINUTE: '1000000',
      KARIBCHE_AUTH_FAILURE_LIMIT: '1000000',
      LOG_LEVEL: 'info',
    },
    { logStream: { write: (line: string) => void logs.push(line) } },
  );
  const m = await MerchantClient.create(t);
  const other = await createMerchant(t);
  const otherToken = await accessToken(t.app, other.credentials);
  const targets: Record<Target, string[]> = { payId: [], recId: [], clientId: [], token: [] };
  const paid = await createPaid(t, m, { saveCard: true });
  const held = await createPaid(t, m, { preAuth: true });
  const open = (await m.createPayment(basicPayment())).json().payId as string;
  const otherClient = new MerchantClient(t.app, other.credentials, otherToken);
  const foreign = (await otherClient.createPayment(basicPayment())).json().payId as string;
  // The dashboard's user belongs to the other merchant (its key and secret rotations must not end
  // the fuzzing merchant's session): its paid and held payments are targets too.
  const otherPaid = await createPaid(t, otherClient);
  const otherHeld = await createPaid(t, otherClient, { preAuth: true });
  targets.payId.push(paid, held, open, foreign, otherPaid, otherHeld);
  targets.recId.push(((await m.getPayment(paid)).json().recurringCard?.recId as string) ?? paid);
  // Operator calls aim at the other merchant: rotating the fuzzing merchant's secret would end its session.
  targets.clientId.push(other.credentials.clientId);
  const bystander = (await createMerchant(t)).credentials.clientId;
  const page = await t.app.inject({ method: 'GET', url: `/checkout/${open}` });
  const csrf = {
    cookie: String(page.headers['set-cookie']).split(';')[0]!,
    token: /name="csrf" value="([^"]+)"/.exec(page.body)![1]!,
  };
  const qrPage = await t.app.inject({
    method: 'GET',
    url: `/checkout/${open}?method=4`,
    headers: { cookie: csrf.cookie },
  });
  targets.token.push(/\/qr\/([^"/?]+)/.exec(qrPage.body)![1]!);
  const user = await t.admin('POST', `/admin/v1/merchants/${other.credentials.clientId}/users`, DASHBOARD_LOGIN);
  if (user.statusCode !== 201) throw new Error(`dashboard user: ${user.body}`);
  const [browser, spare, signIn] = [
    await DashboardBrowser.signedIn(t, DASHBOARD_LOGIN),
    await DashboardBrowser.signedIn(t, DASHBOARD_LOGIN),
    new DashboardBrowser(t.app),
  ];
  const signInCsrf = fieldOf((await signIn.get('/dashboard/sign-in')).body, 'csrf')!;
  const dashboard = {
    cookie: `kb_dash=${browser.cookies.get('kb_dash')}; kb_dash_pre=${signIn.cookies.get('kb_dash_pre')}`,
    csrf: await browser.csrf(),
    signInCsrf,
    spareCookie: `kb_dash=${spare.cookies.get('kb_dash')}`,
    spareCsrf: await spare.csrf(),
  };
  const { rows } = await t.gw.services.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const fingerprintSql = `SELECT ${rows
    .filter((r) => !NOT_FINGERPRINTED.has(r.table_name))
    .map(
      (r) =>
        `(SELECT count(*) || ':' || coalesce(md5(string_agg(md5(x::text), '' ORDER BY md5(x::text))), '') FROM "${r.table_name}" x)`,
    )
    .join(` || '|' || `)} AS f`;
  let lastPrint: { lsn: string; f: string } | null = null;
  return {
    t,
    logs,
    m,
    otherToken,
    bystander,
    targets,
    csrf,
    dashboard,
    fingerprint: async () => {
      // Nothing can have changed while no WAL was written (every table here is logged, and a commit
      // writes WAL too): the last fingerprint again, without hashing every row of every table,
      // which on PGlite was most of the hostile suites' CPU (~11 of 32 s busy in 1,500 cases).
      // A write whose WAL came after `lsn` moves it, so the next call hashes again.
      const db = t.gw.services.db;
      const lsn = (await db.query<{ l: string }>('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0]!.l;
      if (lastPrint?.lsn === lsn) return lastPrint.f;
      lastPrint = { lsn, f: (await db.query<{ f: string }>(fingerprintSql)).rows[0]!.f };
      return lastPrint.f;
    },
    authHeaders(e) {
      if (e.auth === 'merchant') return m.headers();
      if (e.auth === 'admin') return { authorization: `Bearer ${ADMIN_TOKEN}` };
      if (e.path.endsWith('/access-token')) return { apikey: m.credentials.apiKey };
      if (e.path.startsWith('/checkout/')) return { cookie: csrf.cookie };
      if (e.auth === 'dashboard')
        return { cookie: e.path === '/dashboard/sign-out' ? dashboard.spareCookie : dashboard.cookie };
      return {};
    },
    withCsrf(e, body) {
      if (e.path.startsWith('/checkout/')) return { ...body, csrf: csrf.token };
      if (e.auth !== 'dashboard') return body;
      return {
        ...body,
        csrf:
          e.path === '/dashboard/sign-in'
            ? dashboard.signInCsrf
            : e.path === '/dashboard/sign-out'
              ? dashboard.spareCsrf
              : dashboard.csrf,
      };
    },
  };
}

/** A rejection is documented problem JSON on the API and an HTML page on the checkout and dashboard. */
export function assertDocumentedRejection(url: string, res: LightMyRequestResponse, what: string): void {
  const type = String(res.headers['content-type']);
  const path = new URL(url, 'http://x').pathname;
  if (isCheckoutPage(path) || isDashboardPage(path)) {
    assert.match(type, /^text\/html/, what);
    return;
  }
  assert.match(type, /^application\/problem\+json/, what);
  const body = res.json();
  assert.equal(body.status, String(res.statusCode), what);
  assert.ok(DOCUMENTED.includes(`\`${body.systemCode}\``), `undocumented systemCode ${body.systemCode}: ${what}`);
  for (const k of ['type', 'title', 'detail']) assert.equal(typeof body[k], 'string', what);
}

/** C0 and C1 control characters other than the tab and line breaks an HTML page may hold. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/**
 * What the gateway echoes (a page) and logs holds no control character and no full card number:
 * pages never echo one that was sent, and log lines never hold one at all (JSON escapes control
 * characters, so a log line is checked for card numbers only).
 */
export function assertCleanEcho(
  body: string,
  contentType: string,
  sentCardNumbers: readonly string[],
  newLogLines: readonly string[],
  what: string,
): void {
  if (/^text\/html/.test(contentType)) {
    const at = body.search(CONTROL);
    assert.equal(
      at,
      -1,
      `a control character echoed (${JSON.stringify(body.slice(Math.max(0, at - 80), at + 20))}): ${what}`,
    );
    const digits = body.replace(/[\s-]/g, '');
    for (const n of sentCardNumbers) assert.ok(!digits.includes(n), `the card number sent was echoed: ${what}`);
  }
  for (const line of newLogLines) {
    // (A JSON number is no card number: responseTime's 16 decimals can pass Luhn by chance.)
    assert.deepEqual(
      cardNumbersIn(line.replace(/":-?\d+(\.\d+)?(e[+-]?\d+)?(?=[,}])/gi, '":0')),
      [],
      `a card number logged: ${line.slice(0, 300)} (${what})`,
    );
    assert.doesNotMatch(line.replace(/\n$/, ''), /[\u0000-\u001f]/, `a raw control character logged: ${what}`);
  }
}
