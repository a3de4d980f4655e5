// The dashboard's pages and actions over HTTP, against the merchant API: the same search, the same
// refusals word for word, operations the API then sees, a double submit that runs once, callback
// addresses the API then accepts, keys that stop working, the request log, settings and CSV.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { changeOwnSettings } from '../merchants/self-service.ts';
import { BACKENDS } from '../testing/databases.ts';
import { DashboardBrowser, createDashboardUser, fieldOf, mainText } from '../testing/dashboard.ts';
import {
  EVERYTHING,
  MerchantClient,
  SPLIT_IBAN,
  accessToken,
  basicPayment,
  createPaid,
  startTestGateway,
  type TestGateway,
} from '../testing/harness.ts';
import { Receiver } from '../testing/receiver.ts';
import { waitUntil } from '../testing/wait.ts';

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

interface ShownProblem {
  detail: string;
  fields: { name: string; reason: string }[];
  code: string | undefined;
}

/** The refusal a page shows (the problem box). */
function pageProblem(body: string): ShownProblem {
  const box = /<div class="notice notice-bad problem"[^>]*>([\s\S]*?)<\/div>/.exec(body)?.[1];
  assert.ok(box, `no problem shown: ${mainText(body).slice(0, 300)}`);
  return {
    detail: unescape(/class="problem-detail">([\s\S]*?)<\/p>/.exec(box)![1]!),
    fields: [...box.matchAll(/<li><code>([^<]*)<\/code> ([^<]*)<\/li>/g)].map((m) => ({
      name: unescape(m[1]!),
      reason: unescape(m[2]!),
    })),
    code: /class="problem-code">[^<]*<code>([^<]*)<\/code>/.exec(box)?.[1],
  };
}

/**
 * The same refusal as the API answered it, as the page shows it: a single field whose words are the
 * detail already is not listed again.
 */
const apiProblemCode = (res: { json(): any }) => res.json().systemCode as string;

function apiProblem(res: { json(): any; statusCode: number }): ShownProblem {
  const j = res.json();
  const fields = (j.invalidParams ?? []).map((p: { name: string; reason: string }) => ({
    name: p.name,
    reason: p.reason,
  }));
  const listed = fields.length > 1 || (fields.length === 1 && j.detail !== `${fields[0].name} ${fields[0].reason}`);
  return { detail: j.detail, fields: listed ? fields : [], code: j.systemCode };
}

/** The payIds a payments page links to, in order. */
const listed = (body: string) =>
  [...body.matchAll(/<a class="id" href="\/dashboard\/payments\/([0-9a-f]{32})">/g)].map((m) => m[1]!);

for (const backend of BACKENDS) {
  describe(`dashboard pages and actions [${backend}]`, { timeout: 600_000 }, () => {
    let t: TestGateway;
    let m: MerchantClient;
    let b: DashboardBrowser;
    const receiver = new Receiver();
    before(async () => {
      await receiver.start();
      t = await startTestGateway(backend, {}, { background: true });
      m = await MerchantClient.create(t, {
        ...EVERYTHING,
        callbackUrlPrefixes: ['https://shop.example/callbacks', `http://127.0.0.1:${receiver.port}`],
      });
      b = await DashboardBrowser.signedIn(t, await createDashboardUser(t, m.credentials.clientId));
    });
    after(async () => {
      await t?.close();
      await receiver.stop();
    });
    const api = async () => {
      m.token = await accessToken(t.app, m.credentials);
      return m;
    };
    const db = () => t.gw.services.db;

    /** Fills in an action's form and confirms it, as a user does; the last answer. */
    async function act(
      payId: string,
      action: 'refund' | 'complete' | 'void',
      fields: Record<string, string> = {},
      browser = b,
    ) {
      const form = await browser.get(`/dashboard/payments/${payId}/${action}`);
      assert.equal(form.statusCode, 200, mainText(form.body));
      const base = { csrf: fieldOf(form.body, 'csrf'), nonce: fieldOf(form.body, 'nonce') };
      const review = await browser.post(`/dashboard/payments/${payId}/${action}`, {
        ...base,
        step: 'review',
        amount: fieldOf(form.body, 'amount') ?? /id="amount"[^>]*value="([^"]*)"/.exec(form.body)?.[1],
        ...fields,
      });
      if (review.statusCode !== 200 || !review.body.includes('name="step" value="confirm"')) return review;
      return browser.post(`/dashboard/payments/${payId}/${action}`, {
        ...base,
        step: 'confirm',
        amount: fieldOf(review.body, 'amount'),
        extra2: fieldOf(review.body, 'extra2'),
      });
    }

    it('serves every page as a strict HTML page: its own CSP (no inline script or style), no caching, nothing external', async () => {
      const payId = await createPaid(t, await api());
      for (const url of [
        '/dashboard/payments',
        `/dashboard/payments/${payId}`,
        `/dashboard/payments/${payId}/refund`,
        '/dashboard/callbacks',
        '/dashboard/developers',
        '/dashboard/developers/requests',
        '/dashboard/settings',
      ]) {
        const res = await b.get(url);
        assert.equal(res.statusCode, 200, url);
        assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
        const csp = String(res.headers['content-security-policy']);
        for (const d of [
          "default-src 'none'",
          "script-src 'self'",
          "style-src 'self'",
          "form-action 'self'",
          "frame-ancestors 'none'",
        ])
          assert.ok(csp.includes(d), `${url}: ${d}`);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.equal(res.headers['x-frame-options'], 'DENY');
        assert.doesNotMatch(
          res.body,
          /<script>|<script [^>]*>[^<]|\son[a-z]+=|\sstyle=/i,
          `${url}: no inline script, handlers or styles`,
        );
        assert.deepEqual(
          [...res.body.matchAll(/(?:src|href)="(https?:[^"]+)"/g)].map((x) => x[1]),
          [],
          `${url}: no external assets`,
        );
        assert.equal((res.body.match(/<h1[ >]/g) ?? []).length, 1, `${url}: one h1`);
        for (const form of res.body.match(/<form method="post"[\s\S]*?<\/form>/g) ?? [])
          assert.match(form, /name="csrf" value="[A-Za-z0-9_-]{43}"/, `${url}: every form carries the CSRF token`);
      }
      for (const asset of ['dashboard.css', 'dashboard.js'])
        assert.equal((await t.app.inject({ method: 'GET', url: `/dashboard/assets/${asset}` })).statusCode, 200);
    });

    it('lists payments with each filter exactly as the API’s search finds them', async () => {
      const client = await api();
      const paid = await createPaid(t, client, {
        merchantPaymentId: 'filter-paid',
        amount: { currency: 'GEL', total: '12.34' },
      });
      const open = (
        await client.createPayment(
          basicPayment({ merchantPaymentId: 'filter-open', amount: { currency: 'USD', total: 56 } }),
        )
      ).json().payId as string;
      const held = await createPaid(t, client, {
        preAuth: true,
        merchantPaymentId: 'filter-held',
        amount: { currency: 'EUR', total: 7 },
      });
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: t.gw.services.config.timeZone }).format(new Date());
      const yesterday = new Intl.DateTimeFormat('en-CA', { timeZone: t.gw.services.config.timeZone }).format(
        new Date(Date.now() - 86_400_000),
      );
      const cases: [string, string][] = [
        ['status=Succeeded', 'status=Succeeded'],
        ['status=WaitingConfirm', 'status=WaitingConfirm'],
        ['method=5', 'method=5'],
        ['currency=USD', 'currency=USD'],
        ['minAmount=50', 'minAmount=50'],
        ['maxAmount=12.34', 'maxAmount=12.34'],
        ['minAmount=7&maxAmount=7', 'minAmount=7&maxAmount=7'],
        ['merchantPaymentId=filter-held', 'merchantPaymentId=filter-held'],
        [`payId=${open}`, `payId=${open}`],
        ['status=Succeeded&currency=GEL&method=5', 'status=Succeeded&currency=GEL&method=5'],
      ];
      for (const [page, query] of cases) {
        const res = await b.get(`/dashboard/payments?${page}`);
        assert.equal(res.statusCode, 200, page);
        const fromApi = (await client.get(`/v1/gateway/payments?limit=25&${query}`))
          .json()
          .items.map((p: { payId: string }) => p.payId);
        assert.deepEqual(listed(res.body), fromApi, page);
        assert.ok(listed(res.body).length > 0, `${page} finds something`);
      }
      assert.deepEqual(listed((await b.get('/dashboard/payments?merchantPaymentId=filter-paid')).body), [paid]);
      assert.deepEqual(listed((await b.get(`/dashboard/payments?payId=${held}`)).body), [held]);
      // Dates are calendar days in the gateway's time zone; "to" includes its day.
      const all = listed((await b.get(`/dashboard/payments?from=${today}&to=${today}`)).body);
      assert.ok([paid, open, held].every((id) => all.includes(id)));
      assert.deepEqual(listed((await b.get(`/dashboard/payments?to=${yesterday}`)).body), []);
      assert.deepEqual(listed((await b.get('/dashboard/payments?merchantPaymentId=no-such-order')).body), []);
      assert.match(
        mainText((await b.get('/dashboard/payments?merchantPaymentId=no-such-order&lang=en')).body),
        /No payments match\./,
      );
    });

    it('refuses a bad filter with the API’s own message (400 page, never JSON)', async () => {
      const client = await api();
      const res = await b.get(
        '/dashboard/payments?minAmount=1.234&maxAmount=abc&status=Paid&currency=gel&from=2026-13-45',
      );
      assert.equal(res.statusCode, 400);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      const fromApi = await client.get(
        '/v1/gateway/payments?minAmount=1.234&maxAmount=abc&status=Paid&currency=gel&from=2026-13-45',
      );
      assert.equal(fromApi.statusCode, 400);
      assert.deepEqual(pageProblem(res.body), apiProblem(fromApi));
      assert.equal((await b.get('/dashboard/payments/export.csv?minAmount=x')).statusCode, 400);
      const twice = await b.get('/dashboard/payments?status=Succeeded&status=Failed');
      assert.equal(twice.statusCode, 400);
      assert.match(String(twice.headers['content-type']), /^text\/html/);
    });

    it('pages through the list with a cursor and exports every match as CSV (decimal amounts, quoted fields, no formulas)', async () => {
      const other = await MerchantClient.create(t);
      const login = await createDashboardUser(t, other.credentials.clientId);
      const browser = await DashboardBrowser.signedIn(t, login);
      const made: { payId: string; createdAt: string }[] = [];
      for (let i = 0; i < 27; i++) {
        const res = await other.createPayment(
          basicPayment({
            amount: { currency: 'GEL', total: `${i + 1}.05` },
            merchantPaymentId: i === 0 ? '=HYPERLINK("x","y")' : `order,${i}`,
          }),
        );
        const { payId } = res.json();
        made.push({ payId, createdAt: (await other.getPayment(payId)).json().createdAt });
      }
      // Newest first; payments created in the same millisecond by payId, descending (docs/dashboard.md).
      const ids = [...made]
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.payId.localeCompare(a.payId))
        .map((p) => p.payId);
      const lineOf = (lines: string[], i: number) => lines.find((l) => l.startsWith(`${made[i]!.payId},`)) ?? '';
      const first = await browser.get('/dashboard/payments');
      assert.deepEqual(listed(first.body), ids.slice(0, 25));
      const next = /href="(\/dashboard\/payments\?cursor=[^"]+)" rel="next"/.exec(first.body)?.[1];
      assert.ok(next, 'a next page');
      const second = await browser.get(unescape(next));
      assert.deepEqual(listed(second.body), ids.slice(25));
      assert.doesNotMatch(second.body, /rel="next"/);
      assert.match(second.body, /href="\/dashboard\/payments">/, 'back to the first page');

      const csv = await browser.get('/dashboard/payments/export.csv');
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /^text\/csv; charset=utf-8/);
      assert.match(
        String(csv.headers['content-disposition']),
        /^attachment; filename="payments-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      const lines = csv.body.trimEnd().split('\r\n');
      assert.equal(lines.length, 28);
      assert.equal(
        lines[0],
        'payId,createdAt,updatedAt,status,paymentMethod,currency,amount,confirmedAmount,returnedAmount,merchantPaymentId,transactionId,rrn,resultCode,paymentCardNumber,preAuth,initiator,splitIban,splitAmount,splitReturnedAmount,recId',
      );
      assert.deepEqual(
        lines.slice(1).map((l) => l.split(',')[0]),
        ids,
      );
      assert.ok(lineOf(lines, 26).includes(',Created,,GEL,27.05,0.00,0.00,"order,26",'), lineOf(lines, 26));
      assert.ok(lineOf(lines, 0).includes(`,"'=HYPERLINK(""x"",""y"")",`), lineOf(lines, 0));
      const filtered = await browser.get('/dashboard/payments/export.csv?minAmount=26');
      assert.equal(filtered.body.trimEnd().split('\r\n').length, 3);
    });

    it('shows a refunded split payment: every field, the split share, the timeline, the operations and every callback attempt', async () => {
      const client = await api();
      const payId = await createPaid(t, client, {
        amount: { currency: 'GEL', total: 100 },
        extra: SPLIT_IBAN,
        extra2: '30',
        merchantPaymentId: 'split-1',
        callbackUrl: receiver.url,
        description: 'Split <order>',
      });
      const refund = await client.post(`/v1/gateway/payments/${payId}/cancel`, {
        amount: 40,
        extra: SPLIT_IBAN,
        extra2: 10,
      });
      assert.equal(refund.statusCode, 200, refund.body);
      const before = receiver.received.filter((r) => r.body.includes(payId)).length;
      await receiver.waitFor(receiver.received.length - before + 2);
      let page = await b.get(`/dashboard/payments/${payId}?lang=en`);
      for (
        const end = Date.now() + 15_000;
        (page.body.match(/delivery-delivered/g) ?? []).length < 2 && Date.now() < end;
        page = await b.get(`/dashboard/payments/${payId}`)
      )
        await new Promise((r) => setTimeout(r, 100));
      const text = mainText(page.body);
      const p = (await client.getPayment(payId)).json();
      for (const shown of [
        payId,
        '100.00 GEL',
        '40.00 GEL',
        'split-1',
        'Split <order>',
        p.transactionId,
        p.rrn,
        '411111******1111',
        SPLIT_IBAN,
        '30.00 GEL',
        '10.00 GEL',
        'Partly returned',
        'Refund',
        'Done',
        `${payId}.refund.1`,
      ]) {
        assert.ok(text.includes(shown.replace(/ /g, '\u00a0')) || text.includes(shown), `shows ${shown}`);
      }
      // The timeline: Created, then every event in order.
      const timeline = [...page.body.matchAll(/<li><span class="badge badge-([a-z]+)">/g)].map((x) => x[1]);
      assert.deepEqual(timeline, ['created', 'processing', 'succeeded', 'cancelpaymentprocessing', 'partialreturned']);
      // Every callback with its attempts: HTTP 200 from the receiver.
      assert.equal((page.body.match(/<article class="delivery"/g) ?? []).length, 2);
      assert.equal((page.body.match(/<code>200<\/code>/g) ?? []).length, 2);
      assert.ok(page.body.includes(`<code>${receiver.url}</code>`));
      // Refunded in part on the day of the transaction: no second refund today (the API's window).
      assert.doesNotMatch(page.body, />Refund<\/button>/);
      assert.match(page.body, /No refund, completion or void is possible now\./);
    });

    it('refunds, completes and voids from the dashboard, with a confirmation step; the API then sees each', async () => {
      const client = await api();
      const paid = await createPaid(t, client, { amount: { currency: 'GEL', total: 50 } });
      const form = await b.get(`/dashboard/payments/${paid}/refund`);
      const review = await b.post(`/dashboard/payments/${paid}/refund`, {
        csrf: fieldOf(form.body, 'csrf'),
        nonce: fieldOf(form.body, 'nonce'),
        step: 'review',
        amount: '20',
      });
      assert.equal(review.statusCode, 200);
      assert.match(mainText(review.body), new RegExp(`Refund 20\\.00\\sGEL of payment ${paid}\\?`));
      assert.equal(
        (await client.getPayment(paid)).json().status,
        'Succeeded',
        'nothing happens before the confirmation',
      );
      const done = await b.post(`/dashboard/payments/${paid}/refund`, {
        csrf: fieldOf(review.body, 'csrf'),
        nonce: fieldOf(review.body, 'nonce'),
        step: 'confirm',
        amount: fieldOf(review.body, 'amount'),
      });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, `/dashboard/payments/${paid}?notice=refund-done`);
      assert.match(mainText((await b.get(done.headers.location as string)).body), /The refund was made\./);
      const p = (await client.getPayment(paid)).json();
      assert.equal(p.status, 'PartialReturned');
      assert.equal(p.returnedAmount, 20);

      const held = await createPaid(t, client, { preAuth: true, amount: { currency: 'GEL', total: 80 } });
      assert.equal((await act(held, 'complete', { amount: '60.50' })).statusCode, 303);
      const c = (await client.getPayment(held)).json();
      assert.equal(c.status, 'Succeeded');
      assert.equal(c.confirmedAmount, 60.5);

      const voided = await createPaid(t, client, { preAuth: true, amount: { currency: 'GEL', total: 30 } });
      assert.equal((await act(voided, 'void')).statusCode, 303);
      const v = (await client.getPayment(voided)).json();
      assert.equal(v.status, 'Returned');
      assert.equal(v.returnedAmount, 30);
      const after = await b.get(`/dashboard/payments/${voided}`);
      assert.doesNotMatch(after.body, />(Refund|Complete|Void)<\/button>/, 'a returned payment offers no action');

      // The buttons follow the API's window (rules/window.ts): no second refund on the day of the
      // transaction after a partial one, and nothing for a pre-authorisation past its block.
      assert.doesNotMatch(
        (await b.get(`/dashboard/payments/${paid}`)).body,
        />Refund<\/button>/,
        'refunded today already',
      );
      assert.equal(
        apiProblemCode(await client.post(`/v1/gateway/payments/${paid}/cancel`, { amount: '1' })),
        'cancel-payment.400.053',
      );
      const shortBlock = await createPaid(t, client, { preAuth: true, amount: { currency: 'GEL', total: 5 } });
      assert.match((await b.get(`/dashboard/payments/${shortBlock}`)).body, />Complete<\/button>/);
      // Its block ends now (as the issuer's window would), before the sweep returns it.
      await t.gw.services.db.query('UPDATE payments SET pre_auth_expires_at = $2 WHERE pay_id = $1', [
        shortBlock,
        t.gw.services.clock.now(),
      ]);
      const expired = await b.get(`/dashboard/payments/${shortBlock}`);
      assert.doesNotMatch(expired.body, />(Refund|Complete|Void)<\/button>/, 'a released block offers no action');
      assert.equal(
        apiProblemCode(await client.post(`/v1/gateway/payments/${shortBlock}/completion`, { amount: '5' })),
        'complete-payment.400.056',
      );
    });

    it('refuses what the API refuses, in the API’s words (message, fields, systemCode)', async () => {
      const client = await api();
      const paid = await createPaid(t, client, { amount: { currency: 'GEL', total: 10 } });
      const split = await createPaid(t, client, {
        amount: { currency: 'GEL', total: 100 },
        extra: SPLIT_IBAN,
        extra2: '30',
      });
      const held = await createPaid(t, client, { preAuth: true, amount: { currency: 'GEL', total: 20 } });
      const cases: {
        payId: string;
        action: 'refund' | 'complete';
        form: Record<string, string>;
        api: { path: string; body: Record<string, unknown> };
        code: string;
      }[] = [
        {
          payId: paid,
          action: 'refund',
          form: { amount: '10.01' },
          api: { path: 'cancel', body: { amount: '10.01' } },
          code: 'cancel-payment.400.051',
        },
        {
          payId: paid,
          action: 'refund',
          form: { amount: 'ten' },
          api: { path: 'cancel', body: { amount: 'ten' } },
          code: 'cancel-payment.400.001',
        },
        {
          payId: paid,
          action: 'refund',
          form: { amount: '1.005' },
          api: { path: 'cancel', body: { amount: '1.005' } },
          code: 'cancel-payment.400.001',
        },
        {
          payId: split,
          action: 'refund',
          form: { amount: '10', extra2: '' },
          api: { path: 'cancel', body: { amount: '10', extra: SPLIT_IBAN } },
          code: 'cancel-payment.400.054',
        },
        {
          payId: split,
          action: 'refund',
          form: { amount: '10', extra2: '10.01' },
          api: { path: 'cancel', body: { amount: '10', extra: SPLIT_IBAN, extra2: '10.01' } },
          code: 'cancel-payment.400.054',
        },
        {
          payId: held,
          action: 'complete',
          form: { amount: '20.01' },
          api: { path: 'completion', body: { amount: '20.01' } },
          code: 'complete-payment.400.051',
        },
        {
          payId: paid,
          action: 'complete',
          form: { amount: '5' },
          api: { path: 'completion', body: { amount: '5' } },
          code: 'complete-payment.400.050',
        },
      ];
      for (const c of cases) {
        const form = await b.get(`/dashboard/payments/${c.payId}/${c.action}`);
        // Straight to the confirmation (as a stale or hand-made form would): the use case refuses.
        const res = await b.post(`/dashboard/payments/${c.payId}/${c.action}`, {
          csrf: fieldOf(form.body, 'csrf'),
          nonce: fieldOf(form.body, 'nonce'),
          step: 'confirm',
          ...c.form,
        });
        assert.equal(res.statusCode, 400, `${c.code}: ${mainText(res.body).slice(0, 200)}`);
        const fromApi = await client.post(`/v1/gateway/payments/${c.payId}/${c.api.path}`, c.api.body);
        assert.equal(fromApi.statusCode, 400);
        assert.equal(apiProblem(fromApi).code, c.code);
        assert.deepEqual(pageProblem(res.body), apiProblem(fromApi), c.code);
      }
      // The same day's second refund: the API's rule, the API's words.
      assert.equal((await act(paid, 'refund', { amount: '1' })).statusCode, 303);
      const second = await act(paid, 'refund', { amount: '1' });
      assert.equal(second.statusCode, 400);
      const fromApi = await client.post(`/v1/gateway/payments/${paid}/cancel`, { amount: '1' });
      assert.deepEqual(pageProblem(second.body), apiProblem(fromApi));
      assert.equal(apiProblem(fromApi).code, 'cancel-payment.400.053');
      // A form for a pre-authorisation never refunds a payment that was completed meanwhile (and back).
      const completed = await createPaid(t, client, { preAuth: true });
      const staleVoid = await b.get(`/dashboard/payments/${completed}/void`);
      assert.equal((await client.post(`/v1/gateway/payments/${completed}/completion`, { amount: 10 })).statusCode, 200);
      const refused = await b.post(`/dashboard/payments/${completed}/void`, {
        csrf: fieldOf(staleVoid.body, 'csrf'),
        nonce: fieldOf(staleVoid.body, 'nonce'),
        step: 'confirm',
      });
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(pageProblem(refused.body).code, 'cancel-payment.400.050');
      assert.match(pageProblem(refused.body).detail, /cannot be voided/);
      assert.equal((await client.getPayment(completed)).json().status, 'Succeeded', 'not refunded');
      // An unknown or another merchant's payment: the not-found page.
      const foreign = await createPaid(t, await MerchantClient.create(t));
      for (const url of [
        `/dashboard/payments/${foreign}`,
        `/dashboard/payments/${foreign}/refund`,
        '/dashboard/payments/not-a-pay-id',
      ])
        assert.equal((await b.get(url)).statusCode, 404, url);
    });

    it('runs a double-submitted confirmation once; the same form with other values is refused', async () => {
      const client = await api();
      const payId = await createPaid(t, client, { amount: { currency: 'GEL', total: 40 } });
      const form = await b.get(`/dashboard/payments/${payId}/refund`);
      const confirm = {
        csrf: fieldOf(form.body, 'csrf')!,
        nonce: fieldOf(form.body, 'nonce')!,
        step: 'confirm',
        amount: '15',
      };
      const answers = await Promise.all([1, 2, 3].map(() => b.post(`/dashboard/payments/${payId}/refund`, confirm)));
      assert.deepEqual(
        answers.map((r) => r.statusCode),
        [303, 303, 303],
        answers.map((r) => mainText(r.body).slice(0, 120)).join(' | '),
      );
      const again = await b.post(`/dashboard/payments/${payId}/refund`, confirm); // the answer reloaded
      assert.equal(again.statusCode, 303);
      const { rows } = await db().query<{ n: number }>(
        `SELECT count(*)::int AS n FROM payment_operations WHERE pay_id = $1`,
        [payId],
      );
      assert.equal(rows[0]!.n, 1, 'one refund');
      assert.equal((await client.getPayment(payId)).json().returnedAmount, 15);
      const altered = await b.post(`/dashboard/payments/${payId}/refund`, { ...confirm, amount: '16' });
      assert.equal(altered.statusCode, 403);
      assert.match(mainText(altered.body), /form has expired|ფორმას ვადა გაუვიდა/);
      assert.equal(
        (await b.post(`/dashboard/payments/${payId}/refund`, { ...confirm, nonce: 'not-a-nonce' })).statusCode,
        403,
      );
    });

    it('registers and removes callback addresses with the operator API’s rules; the API then accepts (or refuses) a callbackUrl under them', async () => {
      const client = await api();
      const url = 'https://hooks.example/karibche/payment';
      const create = () => client.createPayment(basicPayment({ callbackUrl: url }));
      assert.equal((await create()).json().systemCode, 'create-payment.400.016');
      const added = await b.submit(
        '/dashboard/callbacks/addresses',
        { address: 'https://hooks.example/karibche' },
        '/dashboard/callbacks',
      );
      assert.equal(added.statusCode, 303);
      assert.equal(added.headers.location, '/dashboard/callbacks?notice=address-added');
      assert.equal((await create()).statusCode, 200);
      const merchant = (await t.admin('GET', `/admin/v1/merchants/${m.credentials.clientId}`)).json();
      assert.ok(merchant.callbackUrlPrefixes.includes('https://hooks.example/karibche'));

      for (const bad of [
        'ftp://hooks.example/',
        'https://user:pw@hooks.example/',
        'https://hooks.example/x?y=1',
        'not a url',
      ]) {
        const res = await b.submit('/dashboard/callbacks/addresses', { address: bad }, '/dashboard/callbacks');
        assert.equal(res.statusCode, 400, bad);
        const viaAdmin = await t.admin('PATCH', `/admin/v1/merchants/${m.credentials.clientId}`, {
          callbackUrlPrefixes: [...merchant.callbackUrlPrefixes, bad],
        });
        assert.deepEqual(
          { ...pageProblem(res.body), code: undefined },
          { ...apiProblem(viaAdmin), code: undefined },
          bad,
        );
        assert.match(pageProblem(res.body).code!, /^dashboard\.400\.001$/);
      }
      // The default URL must be under an address: the same rule, the same words.
      const stray = await b.submit(
        '/dashboard/callbacks/default-url',
        { url: 'https://elsewhere.example/cb' },
        '/dashboard/callbacks',
      );
      assert.equal(stray.statusCode, 400);
      assert.match(pageProblem(stray.body).detail, /must be under one of the registered callback addresses/);
      assert.equal(pageProblem(stray.body).code, 'dashboard.400.016');
      // String prefixes of a registered address (http://127.0.0.1 is one) that lead elsewhere.
      for (const [url, code] of [
        ['http://localhost.attacker.example/cb', 'dashboard.400.016'],
        ['http://127.0.0.1:80@127.0.0.1:9/x', 'dashboard.400.001'],
      ] as const) {
        const res = await b.submit('/dashboard/callbacks/default-url', { url }, '/dashboard/callbacks');
        assert.deepEqual([res.statusCode, pageProblem(res.body).code], [400, code], url);
      }
      assert.equal(
        (await t.admin('GET', `/admin/v1/merchants/${m.credentials.clientId}`)).json().defaultCallbackUrl,
        null,
      );

      const removed = await b.submit(
        '/dashboard/callbacks/addresses/remove',
        { address: 'https://hooks.example/karibche' },
        '/dashboard/callbacks',
      );
      assert.equal(removed.statusCode, 303);
      assert.equal((await create()).json().systemCode, 'create-payment.400.016');

      // Two additions at once (two tabs): both land.
      await Promise.all(
        ['https://a.example/cb', 'https://b.example/cb'].map((address) =>
          b.submit('/dashboard/callbacks/addresses', { address }, '/dashboard/callbacks'),
        ),
      );
      const now = (await t.admin('GET', `/admin/v1/merchants/${m.credentials.clientId}`)).json().callbackUrlPrefixes;
      assert.ok(now.includes('https://a.example/cb') && now.includes('https://b.example/cb'), now.join(' '));
    });

    it('lists failed and undeliverable callbacks across payments and redelivers them in bulk, and one payment’s from its page', async () => {
      const shop = await MerchantClient.create(t, { ...EVERYTHING, callbackUrlPrefixes: [] });
      const browser = await DashboardBrowser.signedIn(t, await createDashboardUser(t, shop.credentials.clientId));
      const payIds = [await createPaid(t, shop), await createPaid(t, shop), await createPaid(t, shop)];
      // A callback that ran out of retries (3 days of them), made by hand: the rest are undeliverable (no URL).
      await db().query(
        `UPDATE callback_deliveries SET status = 'failed', last_status = 500, last_error = 'HTTP 500' WHERE pay_id = $1`,
        [payIds[0]],
      );
      let page = await browser.get('/dashboard/callbacks?lang=en');
      assert.equal((page.body.match(/name="callbackIds"/g) ?? []).length, 3);
      assert.equal(
        (await browser.get('/dashboard/callbacks?state=failed')).body.match(/name="callbackIds"/g)?.length,
        1,
      );
      assert.equal(
        (await browser.get('/dashboard/callbacks?state=undeliverable')).body.match(/name="callbackIds"/g)?.length,
        2,
      );
      const badState = await browser.get('/dashboard/callbacks?state=lost');
      assert.equal(badState.statusCode, 400);
      assert.deepEqual(pageProblem(badState.body), apiProblem(await shop.get('/v1/gateway/callbacks?state=lost')));
      const none = await browser.submit('/dashboard/callbacks/redeliver', {}, '/dashboard/callbacks');
      assert.equal(none.statusCode, 400);

      // Give the shop a URL, then redeliver: the selected one first, then every undeliverable one.
      for (const [path, form] of [
        ['addresses', { address: `http://127.0.0.1:${receiver.port}` }],
        ['default-url', { url: receiver.url }],
      ] as const) {
        const res = await browser.submit(`/dashboard/callbacks/${path}`, form, '/dashboard/callbacks');
        assert.equal(res.statusCode, 303, mainText(res.body).slice(0, 400));
      }
      const failedId = /name="callbackIds" value="(evt_\d+)"/.exec(
        (await browser.get('/dashboard/callbacks?state=failed')).body,
      )![1]!;
      const received = receiver.received.length;
      const one = await browser.submit(
        '/dashboard/callbacks/redeliver',
        { callbackIds: [failedId, 'evt_999999999'] },
        '/dashboard/callbacks',
      );
      assert.equal(one.statusCode, 200);
      assert.match(
        mainText(one.body),
        /1 callbacks are due again now\. Not redelivered \(no longer failed or without an address\): evt_999999999/,
      );
      const all = await browser.submit(
        '/dashboard/callbacks/redeliver',
        { state: 'undeliverable', callbackIds: failedId },
        '/dashboard/callbacks',
      );
      assert.match(mainText(all.body), /2 callbacks are due again now\./);
      await receiver.waitFor(received + 3);
      assert.deepEqual(
        new Set(receiver.received.slice(received).map((r) => JSON.parse(r.body).PaymentId)),
        new Set(payIds),
      );
      for (const end = Date.now() + 10_000; Date.now() < end; ) {
        page = await browser.get('/dashboard/callbacks');
        if (!page.body.includes('name="callbackIds"')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(mainText(page.body), /No failed callbacks, and none without an address\./);

      // One payment's latest callback, from its page — once the bulk one is delivered (a callback
      // being delivered right now cannot be redelivered: callbacks.400.040, as in the API).
      for (const end = Date.now() + 15_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
        const { rows } = await db().query<{ status: string }>(
          'SELECT status FROM callback_deliveries WHERE pay_id = $1',
          [payIds[1]],
        );
        if (rows.every((r) => r.status === 'delivered')) break;
      }
      const before = receiver.received.length;
      const redo = await browser.submit(
        `/dashboard/payments/${payIds[1]}/redeliver`,
        {},
        `/dashboard/payments/${payIds[1]}`,
      );
      assert.equal(redo.statusCode, 303, mainText(redo.body).slice(0, 600));
      assert.match(
        mainText((await browser.get(redo.headers.location as string)).body),
        /The latest callback is due again now\./,
      );
      await receiver.waitFor(before + 1);
      const open = (await shop.createPayment(basicPayment())).json().payId;
      const nothing = await browser.submit(`/dashboard/payments/${open}/redeliver`, {}, `/dashboard/payments/${open}`);
      assert.equal(nothing.statusCode, 400);
      assert.deepEqual(
        pageProblem(nothing.body),
        apiProblem(await shop.post(`/v1/gateway/payments/${open}/callbacks/redeliver`, {})),
      );
    });

    it('words a callback from its real state: one being sent now is not "not attempted yet"', async () => {
      const payId = await createPaid(t, await api(), { callbackUrl: 'https://shop.example/callbacks/slow' });
      // Once the dispatcher's own first attempt is over (shop.example does not answer), the state of
      // that attempt in flight is set back by hand: claimed and counted (delivering, attempts 1, its
      // lease an hour long so that nothing claims it again), its answer not in yet (no log row).
      await waitUntil(
        'the first attempt is logged',
        async () => (await db().query('SELECT 1 FROM callback_attempts WHERE pay_id = $1', [payId])).rows.length > 0,
      );
      await db().query(
        `UPDATE callback_deliveries SET status = 'delivering', attempts = 1, lease_until = clock_timestamp() + interval '1 hour' WHERE pay_id = $1`,
        [payId],
      );
      await db().query('DELETE FROM callback_attempts WHERE pay_id = $1', [payId]);
      const text = mainText((await b.get(`/dashboard/payments/${payId}?lang=en`)).body);
      assert.match(
        text,
        /Delivering .*Attempts 1 .*Attempt 1 is being sent now; its answer appears here when it is in\./s,
      );
      assert.doesNotMatch(text, /Not attempted yet/);
    });

    it('sends a signed test callback to a registered URL, refuses another, and rotates the signing secret after a confirmation', async () => {
      const before = receiver.received.length;
      const sent = await b.submit(
        '/dashboard/callbacks/test',
        { testUrl: `${receiver.url}/test` },
        '/dashboard/callbacks',
      );
      assert.equal(sent.statusCode, 200);
      assert.match(mainText(sent.body), /answered with HTTP 200 in \d+ ms/);
      // The receiver also gets the other tests' callbacks: this one is the test_ payment's.
      let got;
      for (
        const end = Date.now() + 10_000;
        !(got = receiver.received.slice(before).find((r) => r.path === '/callbacks/test')) && Date.now() < end;
      )
        await new Promise((r) => setTimeout(r, 20));
      assert.ok(got, 'the test callback arrived');
      assert.match(JSON.parse(got.body).PaymentId, /^test_/);
      assert.match(String(got.headers['x-callback-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
      const refused = await b.submit(
        '/dashboard/callbacks/test',
        { testUrl: 'https://not-registered.example/cb' },
        '/dashboard/callbacks',
      );
      assert.equal(refused.statusCode, 400);
      const viaSandbox = await t.admin('POST', '/sandbox/v1/callbacks/test', {
        clientId: m.credentials.clientId,
        url: 'https://not-registered.example/cb',
      });
      assert.equal(pageProblem(refused.body).detail, viaSandbox.json().detail);

      const secret = async () =>
        (
          await db().query<{ callback_secret: string; callback_secret_prev: string | null }>(
            'SELECT callback_secret, callback_secret_prev FROM merchants WHERE client_id = $1',
            [m.credentials.clientId],
          )
        ).rows[0]!;
      const old = await secret();
      const ask = await b.submit('/dashboard/callbacks/signing-secret', {}, '/dashboard/callbacks');
      assert.equal(ask.statusCode, 200);
      assert.match(ask.body, /name="confirm" value="yes"/);
      assert.deepEqual(await secret(), old, 'not before the confirmation');
      const done = await b.post('/dashboard/callbacks/signing-secret', {
        csrf: fieldOf(ask.body, 'csrf'),
        confirm: 'yes',
      });
      const shown = /<code class="once">(whsec_[^<]+)<\/code>/.exec(done.body)?.[1];
      const now = await secret();
      assert.equal(shown, now.callback_secret);
      assert.equal(
        now.callback_secret_prev,
        old.callback_secret,
        'the previous one keeps signing for its grace period',
      );
      assert.doesNotMatch((await b.get('/dashboard/callbacks')).body, /whsec_/, 'shown once');
    });

    it('creates an API key shown once and revokes one, which then gets 401; refuses to revoke the last key as the API does', async () => {
      const shop = await MerchantClient.create(t);
      const browser = await DashboardBrowser.signedIn(t, await createDashboardUser(t, shop.credentials.clientId));
      const created = await browser.submit('/dashboard/developers/api-keys', {}, '/dashboard/developers');
      const key = /<code class="once">(kbk_[^<]+)<\/code>/.exec(created.body)?.[1];
      assert.ok(key);
      assert.doesNotMatch((await browser.get('/dashboard/developers')).body, new RegExp(key), 'shown once');
      const withKey = new MerchantClient(
        t.app,
        { ...shop.credentials, apiKey: key },
        await accessToken(t.app, { ...shop.credentials, apiKey: key }),
      );
      assert.equal((await withKey.get('/v1/gateway/api-keys')).statusCode, 200);
      const keyId = (await withKey.get('/v1/gateway/api-keys'))
        .json()
        .items.find((k: { prefix: string }) => key.startsWith(k.prefix.slice(0, -1))).id as string;
      const ask = await browser.submit('/dashboard/developers/api-keys/revoke', { keyId }, '/dashboard/developers');
      assert.match(ask.body, /name="confirm" value="yes"/);
      assert.equal((await withKey.get('/v1/gateway/api-keys')).statusCode, 200, 'not before the confirmation');
      const revoked = await browser.post('/dashboard/developers/api-keys/revoke', {
        csrf: fieldOf(ask.body, 'csrf'),
        confirm: 'yes',
        keyId,
      });
      assert.equal(revoked.statusCode, 303);
      const stopped = await withKey.get('/v1/gateway/api-keys');
      assert.equal(stopped.statusCode, 401);
      // The original key is now the last one.
      const lastId = (await shop.get('/v1/gateway/api-keys')).json().items[0].id as string;
      const last = await browser.submit(
        '/dashboard/developers/api-keys/revoke',
        { keyId: lastId, confirm: 'yes' },
        '/dashboard/developers',
      );
      assert.equal(last.statusCode, 409);
      assert.deepEqual(
        pageProblem(last.body),
        apiProblem(
          await shop.app.inject({ method: 'DELETE', url: `/v1/gateway/api-keys/${lastId}`, headers: shop.headers() }),
        ),
      );
      const unknown = await browser.submit(
        '/dashboard/developers/api-keys/revoke',
        { keyId: 'ak_0000000000000000', confirm: 'yes' },
        '/dashboard/developers',
      );
      assert.equal(unknown.statusCode, 404);
      assert.equal(pageProblem(unknown.body).code, 'api-keys.404.005');
    });

    it('rotates the client secret after a confirmation: earlier tokens stop, the new secret works', async () => {
      const shop = await MerchantClient.create(t);
      const browser = await DashboardBrowser.signedIn(t, await createDashboardUser(t, shop.credentials.clientId));
      const ask = await browser.submit('/dashboard/developers/client-secret', {}, '/dashboard/developers');
      assert.match(ask.body, /name="confirm" value="yes"/);
      assert.equal((await shop.get('/v1/gateway/api-keys')).statusCode, 200);
      const done = await browser.post('/dashboard/developers/client-secret', {
        csrf: fieldOf(ask.body, 'csrf'),
        confirm: 'yes',
      });
      const secret = /<code class="once">(kbs_[^<]+)<\/code>/.exec(done.body)?.[1];
      assert.ok(secret);
      assert.equal((await shop.get('/v1/gateway/api-keys')).statusCode, 401, 'the earlier token stops');
      await assert.rejects(accessToken(t.app, shop.credentials), /token failed: 400/);
      assert.ok(await accessToken(t.app, { ...shop.credentials, clientSecret: secret }));
    });

    it('shows the request log with every column, redacted bodies, and filters it by status as the API does', async () => {
      const shop = await MerchantClient.create(t);
      const browser = await DashboardBrowser.signedIn(t, await createDashboardUser(t, shop.credentials.clientId));
      const bad = await shop.createPayment({
        amount: { currency: 'GEL', total: -1 },
        returnurl: 'https://shop.example/r',
        description: 'card 4111 1111 1111 1111',
        clientSecret: 'kbs_topsecret',
      });
      assert.equal(bad.statusCode, 400);
      assert.equal((await shop.createPayment(basicPayment())).statusCode, 200);
      await t.app.requestLog.flush();
      let page = await browser.get('/dashboard/developers/requests?lang=en');
      for (
        const end = Date.now() + 10_000;
        (page.body.match(/<tr class=/g) ?? []).length < 2 && Date.now() < end;
        page = await browser.get('/dashboard/developers/requests')
      ) {
        await t.app.requestLog.flush();
        await new Promise((r) => setTimeout(r, 50));
      }
      const text = mainText(page.body);
      for (const shown of [
        'POST',
        '/v1/gateway/payments',
        '400',
        '200',
        'create-payment.400.001',
        bad.headers['x-request-id'] as string,
      ])
        assert.ok(text.includes(shown), shown);
      assert.match(page.body, /\d+ ms/);
      assert.ok(
        !page.body.includes('kbs_topsecret') && !page.body.includes('4111 1111 1111 1111'),
        'bodies are redacted',
      );
      assert.ok(page.body.includes('card ••••1111'), 'the card number masked to its last four');
      const only4xx = await browser.get('/dashboard/developers/requests?status=4xx');
      assert.equal((only4xx.body.match(/<tr class=/g) ?? []).length, 1);
      assert.match(only4xx.body, /<tr class="refused">/);
      const wrong = await browser.get('/dashboard/developers/requests?status=4x');
      assert.equal(wrong.statusCode, 400);
      assert.deepEqual(pageProblem(wrong.body), apiProblem(await shop.get('/v1/gateway/requests?status=4x')));
    });

    it('changes the shop’s name, logo and brand colour with the operator API’s rules, and nothing the operator decides', async () => {
      const shop = await MerchantClient.create(t, { ...EVERYTHING, testMode: false });
      const browser = await DashboardBrowser.signedIn(t, await createDashboardUser(t, shop.credentials.clientId));
      const logo =
        'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
      const saved = await browser.submit(
        '/dashboard/settings',
        { name: 'Nino’s <Shoes>', logoUrl: logo, brandColor: '#AA3300', testMode: 'on', currencies: 'USD' },
        '/dashboard/settings',
      );
      assert.equal(saved.statusCode, 303);
      const after = (await t.admin('GET', `/admin/v1/merchants/${shop.credentials.clientId}`)).json();
      assert.equal(after.name, 'Nino’s <Shoes>');
      assert.equal(after.logoUrl, logo);
      assert.equal(after.brandColor, '#aa3300');
      assert.equal(after.testMode, false);
      assert.deepEqual(after.currencies, EVERYTHING.currencies);
      const page = await browser.get('/dashboard/settings');
      assert.ok(page.body.includes('Nino’s &lt;Shoes&gt;') && !page.body.includes('<Shoes>'), 'escaped');
      const checkout = await t.app.inject({
        method: 'GET',
        url: `/checkout/${(await shop.createPayment(basicPayment())).json().payId}`,
      });
      assert.ok(checkout.body.includes('Nino’s &lt;Shoes&gt;'));

      const bad = await browser.submit(
        '/dashboard/settings',
        { name: '', logoUrl: 'https://cdn.example/logo.png', brandColor: 'red' },
        '/dashboard/settings',
      );
      assert.equal(bad.statusCode, 400);
      const viaAdmin = await t.admin('PATCH', `/admin/v1/merchants/${shop.credentials.clientId}`, {
        name: '',
        logoUrl: 'https://cdn.example/logo.png',
        brandColor: 'red',
      });
      assert.deepEqual(pageProblem(bad.body).fields, apiProblem(viaAdmin).fields);
      const cleared = await browser.submit(
        '/dashboard/settings',
        { name: 'Plain', logoUrl: '', brandColor: '' },
        '/dashboard/settings',
      );
      assert.equal(cleared.statusCode, 303);
      const plain = (await t.admin('GET', `/admin/v1/merchants/${shop.credentials.clientId}`)).json();
      assert.deepEqual([plain.logoUrl, plain.brandColor], [null, null]);

      // The use case itself takes only what a merchant may change, whatever its caller asks.
      const s = t.gw.services;
      await changeOwnSettings(
        s,
        shop.credentials.clientId,
        () => ({ name: 'Still plain', testMode: true, status: 'suspended', currencies: ['USD'] }) as never,
      );
      const guarded = (await t.admin('GET', `/admin/v1/merchants/${shop.credentials.clientId}`)).json();
      assert.deepEqual(
        [guarded.name, guarded.testMode, guarded.status, guarded.currencies],
        ['Still plain', false, 'active', EVERYTHING.currencies],
      );
    });

    it('escapes what merchants and customers control in every page', async () => {
      const evil = await MerchantClient.create(t, { ...EVERYTHING, name: '<img src=x onerror=alert(1)>' });
      const browser = await DashboardBrowser.signedIn(t, await createDashboardUser(t, evil.credentials.clientId));
      const payId = await createPaid(t, evil, {
        merchantPaymentId: '"><script>alert(1)</script>',
        description: '<b>bold</b>',
      });
      for (const url of ['/dashboard/payments', `/dashboard/payments/${payId}`]) {
        const body = (await browser.get(url)).body;
        assert.ok(!body.includes('<img src=x') && !body.includes('<script>alert') && !body.includes('<b>bold'), url);
        assert.ok(body.includes('&lt;img src=x onerror=alert(1)&gt;'), url);
      }
    });
  });
}
