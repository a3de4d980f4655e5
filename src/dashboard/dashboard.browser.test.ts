// The merchant dashboard in a real browser (Debian's chromium): sign-in and its throttling, the
// payments list with each filter, a refunded split payment, a refund, a completion and a void that
// the API then sees, a callback address the API then accepts, an API key revoked that then gets 401,
// bulk redelivery, the request log, CSV export, the keyboard alone, and no JavaScript at all. On the
// first backend it walks every page in both languages: one <h1>, Georgian throughout, axe-core with
// no violation, and screenshots at 1280 and 390 px in test-artifacts/screenshots/dashboard-*.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BACKENDS } from '../testing/databases.ts';
import { SCREENSHOTS, axeRun, injectAxe, launchBrowser, listeningGateway, screenshot } from '../testing/browser.ts';
import { createDashboardUser, type DashboardLogin } from '../testing/dashboard.ts';
import {
  EVERYTHING,
  MerchantClient,
  SPLIT_IBAN,
  accessToken,
  basicPayment,
  createPaid,
  type TestGateway,
} from '../testing/harness.ts';
import { Receiver } from '../testing/receiver.ts';

const WIDTHS = [1280, 390] as const;
const LIMIT = 3;
type Lang = 'en' | 'ka';

/** Records Content-Security-Policy complaints a page logs. */
function watchCsp(page: Page, into: string[]): void {
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) into.push(`${page.url()}: ${msg.text()}`);
  });
}

/**
 * Latin words left on a Georgian page once what stays as written is taken out — <code>, text marked
 * lang="en" (the API's own messages), addresses, and names (shop, brands, codes) — each one is
 * English that was not translated.
 */
async function untranslated(page: Page, kept: string[]): Promise<string[]> {
  const text = await page.evaluate(() => {
    const body = document.body.cloneNode(true) as HTMLElement;
    body.querySelectorAll('code, [lang="en"], .who').forEach((c) => c.remove());
    // Cells apart, as they are on screen: a payId and the description next to it are two words.
    body.querySelectorAll('td, th').forEach((c) => c.append(' '));
    const attrs = [...document.querySelectorAll('*')].flatMap((el) =>
      [...el.attributes]
        .filter((a) => a.name === 'aria-label' || a.name === 'title' || a.name === 'placeholder')
        .map((a) => a.value),
    );
    return [document.title, body.textContent ?? '', ...attrs].join('\n');
  });
  // Addresses, emails, payIds and the ids of callbacks and keys (in labels such as "Revoke key kbk_…").
  let rest = text
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/\S+@\S+/g, ' ')
    .replace(/\b[0-9a-f]{16,}\b/g, ' ')
    .replace(/\b(evt|kbk|kbs|ak|whsec)_\S*/g, ' ');
  for (const k of [...kept].sort((a, b) => b.length - a.length)) rest = rest.split(k).join(' ');
  return rest.match(/[A-Za-z]{3,}/g) ?? [];
}

// One browser for the file: each backend's tests get contexts of their own in it.
let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser?.close());

for (const backend of BACKENDS) {
  describe(`merchant dashboard in Chromium [${backend}]`, { timeout: 1_200_000 }, () => {
    let t: TestGateway;
    let base: string;
    let m: MerchantClient;
    let login: DashboardLogin;
    let context: BrowserContext;
    const receiver = new Receiver();
    const cspViolations: string[] = [];

    before(async () => {
      await receiver.start();
      ({ t, base } = await listeningGateway(
        backend,
        { KARIBCHE_AUTH_FAILURE_LIMIT: String(LIMIT), KARIBCHE_DASHBOARD_SIGN_INS_PER_MINUTE: '100000' },
        { background: true },
      ));
      m = await MerchantClient.create(t, {
        ...EVERYTHING,
        name: 'Tbilisi Shoes',
        callbackUrlPrefixes: ['https://shop.example/callbacks', `http://127.0.0.1:${receiver.port}`],
      });
      login = await createDashboardUser(t, m.credentials.clientId, 'owner@tbilisi-shoes.example');
      context = await signedInContext(login);
    });
    after(async () => {
      await context?.close();
      await t?.close();
      await receiver.stop();
    });

    const api = async (client = m) => {
      client.token = await accessToken(t.app, client.credentials);
      return client;
    };

    async function newPage(ctx: BrowserContext): Promise<Page> {
      const page = await ctx.newPage();
      watchCsp(page, cspViolations);
      return page;
    }

    async function signIn(page: Page, who: DashboardLogin, lang: Lang = 'en') {
      await page.goto(`${base}/dashboard/sign-in?lang=${lang}`);
      await page.getByLabel(lang === 'en' ? 'Email' : 'ელფოსტა').fill(who.email);
      await page.getByLabel(lang === 'en' ? 'Password' : 'პაროლი').fill(who.password);
      await page.getByRole('button', { name: lang === 'en' ? 'Sign in' : 'შესვლა' }).click();
    }

    async function signedInContext(
      who: DashboardLogin,
      opts: { javaScriptEnabled?: boolean } = {},
    ): Promise<BrowserContext> {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...opts });
      const page = await newPage(ctx);
      await signIn(page, who);
      await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
      await page.close();
      return ctx;
    }

    /** The payIds the list shows, in order. */
    const listed = (page: Page) => page.locator('table.payments a.id').allTextContents();
    const apiList = async (query: string) =>
      (await (await api()).get(`/v1/gateway/payments?limit=25&${query}`))
        .json()
        .items.map((p: { payId: string }) => p.payId) as string[];

    it('signs in with Email and Password; refuses a wrong password; locks the account after the limit', async () => {
      const victim = await createDashboardUser(t, m.credentials.clientId);
      const ctx = await browser.newContext();
      const page = await newPage(ctx);
      await page.goto(`${base}/dashboard/sign-in?lang=ka`);
      await page.getByLabel('ელფოსტა').waitFor();
      await page.getByLabel('პაროლი').waitFor();
      await page.getByRole('button', { name: 'შესვლა' }).waitFor();
      await page.getByRole('link', { name: 'English' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      assert.equal(await page.getByLabel('Email').getAttribute('autocomplete'), 'username');
      assert.equal(await page.getByLabel('Password').getAttribute('autocomplete'), 'current-password');
      for (let i = 0; i < LIMIT; i++) {
        await signIn(page, { ...victim, password: `wrong guess ${i}` });
        await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
        assert.equal(await page.getByLabel('Email').inputValue(), victim.email, 'the email stays in the form');
        assert.equal(await page.locator('#password:focus').count(), 1, 'the password field has the focus');
      }
      await signIn(page, victim);
      await page
        .getByRole('alert')
        .filter({ hasText: /Too many failed sign-in attempts\. Try again in \d+ seconds\./ })
        .waitFor();
      // Another account from the same browser still signs in.
      await signIn(page, login);
      await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You have signed out.').waitFor();
      await page.goto(`${base}/dashboard/payments`);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await ctx.close();
    });

    it('lists payments with each filter as the API finds them, finds one by payId, and exports the list as CSV', async () => {
      const client = await api();
      const paid = await createPaid(t, client, {
        merchantPaymentId: 'ui-paid',
        amount: { currency: 'GEL', total: '12.50' },
      });
      const open = (
        await client.createPayment(
          basicPayment({ merchantPaymentId: 'ui-open', amount: { currency: 'USD', total: 75 } }),
        )
      ).json().payId as string;
      const held = await createPaid(t, client, {
        preAuth: true,
        merchantPaymentId: 'ui-held',
        amount: { currency: 'EUR', total: 30 },
      });
      const page = await newPage(context);
      await page.goto(`${base}/dashboard/payments?lang=en`);
      const apply = () => page.getByRole('button', { name: 'Apply filters' }).click();
      const clear = async () => {
        await page.getByRole('link', { name: 'Clear filters' }).click();
        await page.waitForURL(/\/dashboard\/payments$/);
      };
      const expectList = async (query: string, must: string[]) => {
        await page.waitForURL(/\?/);
        const shown = await listed(page);
        assert.deepEqual(shown, await apiList(query), query);
        for (const id of must) assert.ok(shown.includes(id), `${query} shows ${id}`);
      };
      // Each filter as a user sets it, the same search asked of the API, and what it must find.
      const filters: [(p: Page) => Promise<unknown>, string, string[]][] = [
        [(p) => p.getByLabel('Status').selectOption('Succeeded'), 'status=Succeeded', [paid]],
        [(p) => p.getByLabel('Method').selectOption('5'), 'method=5', [paid, held]],
        [(p) => p.getByLabel('Currency').selectOption('USD'), 'currency=USD', [open]],
        [
          async (p) => (await p.getByLabel('Amount from').fill('30'), p.getByLabel('Amount to').fill('75')),
          'minAmount=30&maxAmount=75',
          [open, held],
        ],
        [(p) => p.getByLabel('Order id (merchantPaymentId)').fill('ui-held'), 'merchantPaymentId=ui-held', [held]],
      ];
      for (const [set, query, must] of filters) {
        await set(page);
        await apply();
        await expectList(query, must);
        await clear();
      }
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: t.gw.services.config.timeZone }).format(new Date());
      await page.getByLabel('Created from').fill(today);
      await page.getByLabel('Created to (inclusive)').fill(today);
      await apply();
      await page.waitForURL(/from=/);
      for (const id of [paid, open, held]) assert.ok((await listed(page)).includes(id), `today's list shows ${id}`);
      await clear();
      await page.getByLabel('Find a payment by payId').fill(held);
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await page.waitForURL(/payId=/);
      assert.deepEqual(await listed(page), [held]);
      // A bad filter: the API's message on the page.
      await clear();
      await page.getByLabel('Amount from').fill('1.234');
      await apply();
      await page.getByRole('alert').filter({ hasText: 'minAmount must have at most two decimals' }).waitFor();

      await clear();
      await page.getByLabel('Currency').selectOption('USD');
      await apply();
      await page.waitForURL(/currency=USD/);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Export CSV' }).click(),
      ]);
      assert.match(download.suggestedFilename(), /^payments-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = fs
        .readFileSync((await download.path())!, 'utf8')
        .trimEnd()
        .split('\r\n');
      assert.equal(csv[0]!.split(',')[0], 'payId');
      assert.deepEqual(
        csv.slice(1).map((l) => l.split(',')[0]),
        await apiList('currency=USD'),
      );
      assert.ok(
        csv.some((l) => l.startsWith(`${open},`) && l.includes(',USD,75.00,0.00,0.00,ui-open,')),
        csv.join('\n'),
      );
      await page.close();
    });

    it('refunds a split payment from the dashboard with a confirmation step; the API sees it; the page shows the split share, timeline, operations and every callback attempt', async () => {
      const client = await api();
      const payId = await createPaid(t, client, {
        amount: { currency: 'GEL', total: 100 },
        extra: SPLIT_IBAN,
        extra2: '30',
        merchantPaymentId: 'ui-split',
        callbackUrl: receiver.url,
      });
      const page = await newPage(context);
      await page.goto(`${base}/dashboard/payments/${payId}?lang=en`);
      await page.getByRole('button', { name: 'Refund' }).click();
      await page.getByRole('heading', { level: 1, name: 'Refund a payment' }).waitFor();
      assert.equal(await page.getByLabel('Amount to refund').inputValue(), '100.00');
      await page.getByLabel('Amount to refund').fill('40');
      await page.getByLabel(`Of it, taken from the split account ${SPLIT_IBAN}`).fill('10');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText(`Refund 40.00\u00a0GEL of payment ${payId}?`).waitFor();
      await page.getByText('Of it 10.00\u00a0GEL from the split account.').waitFor();
      assert.equal((await client.getPayment(payId)).json().status, 'Succeeded', 'not before the confirmation');
      await page.getByRole('button', { name: 'Refund 40.00\u00a0GEL' }).click();
      await page.getByRole('status').filter({ hasText: 'The refund was made.' }).waitFor();
      const p = (await client.getPayment(payId)).json();
      assert.equal(p.status, 'PartialReturned');
      assert.equal(p.returnedAmount, 40);
      assert.deepEqual(p.split, { iban: SPLIT_IBAN, amount: 30, returnedAmount: 10 });

      // The success and the partial return each reach the receiver: every attempt on the page.
      for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
        await page.reload();
        if ((await page.locator('.delivery-delivered').count()) === 2) break;
      }
      assert.equal(await page.locator('.delivery-delivered').count(), 2);
      const splitShare = page.getByRole('region', { name: 'Split share' });
      await splitShare.getByText(SPLIT_IBAN).waitFor();
      assert.match(
        (await splitShare.innerText()).replace(/\s+/g, ' '),
        /Split amount 30\.00 GEL Returned from the split account 10\.00 GEL/,
      );
      const ops = page.getByRole('region', { name: 'Refunds, voids and completions' });
      assert.match(
        (await ops.locator('tbody tr').innerText()).replace(/\s+/g, ' '),
        /Refund 40\.00 GEL 10\.00 GEL Done/,
      );
      assert.deepEqual(await page.locator('.timeline .badge').allTextContents(), [
        'Created',
        'Processing',
        'Succeeded',
        'Cancellation in progress',
        'Partly returned',
      ]);
      assert.equal(await page.locator('.delivery table tbody tr').count(), 2, 'one attempt each');
      assert.deepEqual(await page.locator('.delivery td[data-label="HTTP status"]').allTextContents(), ['200', '200']);
      await page.close();
    });

    it('completes one pre-authorisation and voids another from the dashboard; the API sees both', async () => {
      const client = await api();
      const held = await createPaid(t, client, { preAuth: true, amount: { currency: 'GEL', total: 80 } });
      const other = await createPaid(t, client, { preAuth: true, amount: { currency: 'GEL', total: 15 } });
      const page = await newPage(context);
      await page.goto(`${base}/dashboard/payments/${held}?lang=en`);
      await page.getByRole('button', { name: 'Complete' }).click();
      await page.getByLabel('Amount to capture').fill('65.50');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('button', { name: 'Complete 65.50\u00a0GEL' }).click();
      await page.getByRole('status').filter({ hasText: 'The payment was completed.' }).waitFor();
      const c = (await client.getPayment(held)).json();
      assert.deepEqual([c.status, c.confirmedAmount], ['Succeeded', 65.5]);

      await page.goto(`${base}/dashboard/payments/${other}`);
      await page.getByRole('button', { name: 'Void' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText(`Void payment ${other} and release 15.00\u00a0GEL?`).waitFor();
      await page.getByRole('button', { name: 'Void the payment' }).click();
      await page.getByRole('status').filter({ hasText: 'The payment was voided.' }).waitFor();
      assert.equal((await client.getPayment(other)).json().status, 'Returned');
      await page.close();
    });

    it('registers a callback address that the API then accepts', async () => {
      const client = await api();
      const url = 'https://hooks.tbilisi-shoes.example/karibche/payments';
      assert.equal(
        (await client.createPayment(basicPayment({ callbackUrl: url }))).json().systemCode,
        'create-payment.400.016',
      );
      const page = await newPage(context);
      await page.goto(`${base}/dashboard/callbacks?lang=en`);
      await page.getByLabel('New address').fill('https://hooks.tbilisi-shoes.example/karibche');
      await page.getByRole('button', { name: 'Add address' }).click();
      await page.getByRole('status').filter({ hasText: 'The address was registered.' }).waitFor();
      await page.getByText('https://hooks.tbilisi-shoes.example/karibche', { exact: true }).waitFor();
      assert.equal((await client.createPayment(basicPayment({ callbackUrl: url }))).statusCode, 200);
      // An address the rules refuse: the page says why, in the API's words.
      await page.getByLabel('New address').fill('ftp://hooks.tbilisi-shoes.example/');
      await page.getByRole('button', { name: 'Add address' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: 'must be an absolute http(s) URL without user name or password' })
        .waitFor();
      await page.close();
    });

    it('creates an API key, shown once, and revokes it; calls with it then get 401', async () => {
      const page = await newPage(context);
      await page.goto(`${base}/dashboard/developers?lang=en`);
      await page.getByRole('button', { name: 'Create API key' }).click();
      await page.getByText('New API key — shown only now, copy it:').waitFor();
      const key = (await page.locator('code.once').textContent())!;
      const withKey = new MerchantClient(
        t.app,
        { ...m.credentials, apiKey: key },
        await accessToken(t.app, { ...m.credentials, apiKey: key }),
      );
      assert.equal((await withKey.get('/v1/gateway/api-keys')).statusCode, 200);
      await page.getByRole('button', { name: `Revoke key ${key.slice(0, 10)}…` }).click();
      await page.getByText(`Calls with key ${key.slice(0, 10)}… will be refused (401) at once`).waitFor();
      await page.getByRole('button', { name: 'Revoke', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'The key was revoked.' }).waitFor();
      const res = await withKey.get('/v1/gateway/api-keys');
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().systemCode, 'api-keys.401.001');
      await page.close();
    });

    it('redelivers undeliverable callbacks in bulk once the shop has an address', async () => {
      const shop = await MerchantClient.create(t, { ...EVERYTHING, name: 'Kutaisi Books', callbackUrlPrefixes: [] });
      const who = await createDashboardUser(t, shop.credentials.clientId);
      const payIds = [await createPaid(t, shop), await createPaid(t, shop), await createPaid(t, shop)];
      const ctx = await signedInContext(who);
      const page = await newPage(ctx);
      await page.goto(`${base}/dashboard/callbacks?lang=en`);
      assert.equal(await page.getByRole('checkbox').count(), 3);
      await page.getByLabel('New address').fill(`http://127.0.0.1:${receiver.port}`);
      await page.getByRole('button', { name: 'Add address' }).click();
      await page.getByLabel('Default callback URL', { exact: true }).fill(receiver.url);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'The default callback URL was saved.' }).waitFor();
      const before = receiver.received.length;
      const boxes = page.getByRole('checkbox');
      await boxes.nth(0).check();
      await boxes.nth(1).check();
      await page.getByRole('button', { name: 'Redeliver selected' }).click();
      await page.getByRole('status').filter({ hasText: '2 callbacks are due again now.' }).waitFor();
      await page.getByRole('button', { name: 'Redeliver every callback that had no address' }).click();
      await page.getByRole('status').filter({ hasText: '1 callbacks are due again now.' }).waitFor();
      await receiver.waitFor(before + 3, 20_000);
      assert.deepEqual(
        new Set(receiver.received.slice(before).map((r) => JSON.parse(r.body).PaymentId)),
        new Set(payIds),
      );
      for (const end = Date.now() + 15_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
        await page.goto(`${base}/dashboard/callbacks`);
        if ((await page.getByRole('checkbox').count()) === 0) break;
      }
      await page.getByText('No failed callbacks, and none without an address.').waitFor();
      await ctx.close();
    });

    it('shows the request log with its bodies, filtered by status', async () => {
      const client = await api();
      const bad = await client.createPayment({
        amount: { currency: 'GEL', total: 0 },
        returnurl: 'https://shop.example/r',
      });
      assert.equal(bad.statusCode, 400);
      await t.app.requestLog.flush();
      const page = await newPage(context);
      for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
        await t.app.requestLog.flush();
        await page.goto(`${base}/dashboard/developers/requests?lang=en`);
        if (await page.getByText(bad.headers['x-request-id'] as string).count()) break;
      }
      const row = page.locator('tr', { hasText: bad.headers['x-request-id'] as string });
      assert.match(
        (await row.innerText()).replace(/\s+/g, ' '),
        /POST \/v1\/gateway\/payments 400 create-payment\.400\.010 \d+ ms/,
      );
      await row.getByText('Bodies').click();
      await row.getByText('Request body').waitFor();
      await page.getByLabel('Status (e.g. 400 or 4xx)').fill('4xx');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/status=4xx/);
      const statuses = await page.locator('td[data-label="Status"]').allTextContents();
      assert.ok(statuses.length > 0 && statuses.every((s) => /^4\d\d$/.test(s)), statuses.join(','));
      await page.close();
    });

    it('the first hour: a description column, a declined payment reads so, no callback address is no problem, paths wrap at their separators; screenshots', async () => {
      // A shop that does not use callbacks: no address, no default URL.
      const shop = await MerchantClient.create(t, { ...EVERYTHING, name: 'Batumi Tea', callbackUrlPrefixes: [] });
      const who = await createDashboardUser(t, shop.credentials.clientId);
      const declined = (await shop.createPayment(basicPayment({ description: 'Two kilos of Guria black tea' }))).json()
        .payId;
      assert.equal(
        (
          await t.admin('POST', `/sandbox/v1/payments/${declined}/simulate`, { method: 5, card: '4000000000000002' })
        ).json().status,
        'Created',
      );
      const paid = await createPaid(t, shop, basicPayment({ description: 'A tin of green tea' }));
      const ctx = await signedInContext(who);
      const page = await newPage(ctx);
      await page.goto(`${base}/dashboard/payments?lang=en`);
      const headers = await page.locator('table.payments th').allTextContents();
      assert.ok(headers.includes('Description'), headers.join(' | '));
      const declinedRow = (await page.locator('tr', { hasText: declined }).innerText()).replace(/\s+/g, ' ');
      assert.match(declinedRow, /Two kilos of Guria black tea .*Declined, can retry attempts: 1/);
      assert.doesNotMatch(declinedRow, /Created/);
      assert.match(
        (await page.locator('tr', { hasText: paid }).innerText()).replace(/\s+/g, ' '),
        /A tin of green tea .*Succeeded/,
      );
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await screenshot(page, `dashboard-first-hour-payments-${width}`);
      }

      // The paid payment's callback had nowhere to go: said as such, not as a delivery problem.
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/dashboard/payments/${paid}?lang=en`);
      const callbacks = (await page.locator('section[aria-labelledby="callbacks-h"]').innerText()).replace(/\s+/g, ' ');
      assert.match(
        callbacks,
        /Delivery No callback address .*Nothing is sent: the payment has no callback URL and the shop no default callback URL/,
      );
      assert.doesNotMatch(callbacks, /Undeliverable|Not attempted yet/);
      await screenshot(page, 'dashboard-first-hour-no-address-1280');
      await page.goto(`${base}/dashboard/payments/${declined}?lang=en`);
      assert.match(
        (await page.locator('section.overview').innerText()).replace(/\s+/g, ' '),
        /Declined, can retry attempts: 1/,
      );

      // The request log: a long path wraps at a / (or ? &), never inside a segment that fits on a line.
      const client = await api(shop);
      await client.get(`/v1/gateway/payments/${paid}`);
      await client.get(`/v1/gateway/payments?status=Succeeded&currency=GEL&limit=5`);
      await t.app.requestLog.flush();
      await page.goto(`${base}/dashboard/developers/requests?lang=en`);
      for (const width of [...WIDTHS, 820]) {
        await page.setViewportSize({ width, height: 900 });
        await screenshot(page, `dashboard-first-hour-request-log-${width}`);
        const breaks = await page.locator('code.path').evaluateAll((codes) =>
          codes.flatMap((code) => {
            const text = code.textContent ?? '';
            const node = [...code.childNodes];
            // Each character's line (its box's top), through a Range per character of each text node.
            const chars: { ch: string; top: number }[] = [];
            for (const n of node) {
              if (n.nodeType !== Node.TEXT_NODE) continue;
              for (let i = 0; i < (n.textContent ?? '').length; i++) {
                const r = document.createRange();
                r.setStart(n, i);
                r.setEnd(n, i + 1);
                chars.push({ ch: n.textContent![i]!, top: r.getBoundingClientRect().top });
              }
            }
            const width = code.getBoundingClientRect().width;
            const segments = text.split(/(?=[/?&])/);
            const found: { path: string; at: number; ch: string; prev: string; segmentFits: boolean }[] = [];
            let lines = 1;
            for (let i = 1; i < chars.length; i++) {
              if (chars[i]!.top <= chars[i - 1]!.top + 1) continue;
              lines++;
              // The segment this break falls in, and whether it would fit on a line of its own.
              let start = 0;
              const seg = segments.find((s) => (start += s.length) > i)!;
              const probe = document.createElement('span');
              probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap;font:inherit';
              probe.textContent = seg;
              code.appendChild(probe);
              found.push({
                path: text,
                at: i,
                ch: chars[i]!.ch,
                prev: chars[i - 1]!.ch,
                segmentFits: probe.getBoundingClientRect().width <= width,
              });
              probe.remove();
            }
            return [{ path: text, lines, found }];
          }),
        );
        // A break before a separator (the <wbr>) or right after one (the browser's own, after ? or &) is at a boundary.
        const midWord = breaks
          .flatMap((b) => b.found)
          .filter((f) => !'/?&'.includes(f.ch) && !'/?&'.includes(f.prev) && f.segmentFits);
        assert.deepEqual(midWord, [], `${width} px: a path broke inside a segment that fits on a line`);
        if (width === 390)
          assert.ok(
            breaks.some((b) => b.lines > 1),
            '390 px: some path wraps (so the check above saw a break)',
          );
      }
      await ctx.close();
    });

    it('works with the keyboard alone: skip link, sign-in, the sections', async () => {
      const ctx = await browser.newContext();
      const page = await newPage(ctx);
      await page.goto(`${base}/dashboard/sign-in?lang=en`);
      // The email field has the focus on load (autofocus, no script needed).
      await page.locator('#email:focus').waitFor();
      await page.keyboard.type(login.email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(login.password);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
      await page.keyboard.press('Tab');
      assert.equal(
        await page.evaluate(() => document.activeElement?.textContent),
        'Skip to content',
        'the first stop skips the header',
      );
      let tabs = 0;
      while ((await page.evaluate(() => document.activeElement?.textContent)) !== 'Callbacks') {
        await page.keyboard.press('Tab');
        assert.ok(++tabs <= 12, 'the sections are reachable with Tab');
      }
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
      assert.equal(outline, 'solid', 'the focus is visible');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Callbacks' }).waitFor();
      await ctx.close();
    });

    it('works without JavaScript: sign-in, a filter, a refund with its confirmation', async () => {
      const client = await api();
      const payId = await createPaid(t, client, { amount: { currency: 'GEL', total: 20 } });
      const ctx = await signedInContext(login, { javaScriptEnabled: false });
      const page = await newPage(ctx);
      await page.goto(`${base}/dashboard/payments?lang=en`);
      await page.getByLabel('Find a payment by payId').fill(payId);
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await page.getByRole('link', { name: payId }).click();
      await page.getByRole('button', { name: 'Refund' }).click();
      await page.getByLabel('Amount to refund').fill('5');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('button', { name: 'Refund 5.00\u00a0GEL' }).click();
      await page.getByText('The refund was made.').waitFor();
      assert.equal((await client.getPayment(payId)).json().returnedAmount, 5);
      await ctx.close();
    });

    if (backend === BACKENDS[0]) {
      it('every page in both languages: one h1, Georgian throughout, no axe violation; screenshots at 1280 and 390 px', async () => {
        const client = await api();
        const split = await createPaid(t, client, {
          amount: { currency: 'GEL', total: 100 },
          extra: SPLIT_IBAN,
          extra2: '30',
          merchantPaymentId: 'tour-1001',
          description: 'Winter boots',
          callbackUrl: receiver.url,
        });
        assert.equal(
          (await client.post(`/v1/gateway/payments/${split}/cancel`, { amount: 40, extra: SPLIT_IBAN, extra2: 10 }))
            .statusCode,
          200,
        );
        const paid = await createPaid(t, client, { amount: { currency: 'GEL', total: 25 } });
        const held = await createPaid(t, client, { preAuth: true, amount: { currency: 'USD', total: 60 } });
        await client.createPayment({ amount: { currency: 'GEL', total: -1 }, returnurl: 'https://shop.example/r' });
        await t.app.requestLog.flush();
        let strangers = 0;
        interface State {
          name: string;
          signedOut?: boolean;
          open(page: Page, lang: Lang): Promise<void>;
        }
        const go = (url: string) => async (page: Page, lang: Lang) => {
          await page.goto(`${base}${url}${url.includes('?') ? '&' : '?'}lang=${lang}`);
        };
        /** A page reached by a form: open `url`, `act` on it, wait for `shown`. */
        const via =
          (url: string, act: (page: Page, lang: Lang) => Promise<unknown>, shown: string) =>
          async (page: Page, lang: Lang) => {
            await go(url)(page, lang);
            await act(page, lang);
            await page.locator(shown).first().waitFor();
          };
        const fillAndSend =
          (fields: Record<string, string | (() => string)>, clicks = 1) =>
          async (page: Page) => {
            for (const [id, value] of Object.entries(fields))
              await page.locator(`#${id}`).fill(typeof value === 'function' ? value() : value);
            for (let i = 0; i < clicks; i++) await page.locator('button.primary').click();
          };
        const press = (en: string, ka: string) => (page: Page, lang: Lang) =>
          page.getByRole('button', { name: lang === 'en' ? en : ka }).click();
        const states: State[] = [
          { name: 'sign-in', signedOut: true, open: go('/dashboard/sign-in') },
          {
            name: 'sign-in-refused',
            signedOut: true,
            open: via(
              '/dashboard/sign-in',
              fillAndSend({
                email: () => `stranger${++strangers}@tbilisi-shoes.example`,
                password: 'not the password',
              }),
              '[role=alert]',
            ),
          },
          { name: 'payments', open: go('/dashboard/payments') },
          { name: 'payments-refused-filter', open: go('/dashboard/payments?minAmount=1.234') },
          { name: 'payment-refunded-split', open: go(`/dashboard/payments/${split}`) },
          { name: 'refund', open: go(`/dashboard/payments/${paid}/refund`) },
          {
            name: 'refund-confirm',
            open: via(`/dashboard/payments/${paid}/refund`, fillAndSend({ amount: '5' }), '.confirm'),
          },
          // Past the confirmation (999 passes the form's shape check; the refund's rules refuse it).
          {
            name: 'refund-refused',
            open: via(`/dashboard/payments/${paid}/refund`, fillAndSend({ amount: '999' }, 2), '.problem'),
          },
          { name: 'complete', open: go(`/dashboard/payments/${held}/complete`) },
          { name: 'callbacks', open: go('/dashboard/callbacks') },
          {
            name: 'signing-secret-confirm',
            open: via(
              '/dashboard/callbacks',
              press('Rotate signing secret', 'ხელმოწერის გასაღების შეცვლა'),
              '.confirm',
            ),
          },
          { name: 'developers', open: go('/dashboard/developers') },
          {
            name: 'developers-new-key',
            open: async (page, lang) => {
              await via(
                '/dashboard/developers',
                press('Create API key', 'API გასაღების შექმნა'),
                'code.once',
              )(page, lang);
              // Keep the merchant under its limit of active keys: revoke it again behind the page's back.
              const { rows } = await t.gw.services.db.query<{ key_hash: string }>(
                'SELECT key_hash FROM api_keys WHERE client_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1',
                [m.credentials.clientId],
              );
              await t.gw.services.db.query('UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1', [
                rows[0]!.key_hash,
              ]);
            },
          },
          { name: 'request-log', open: go('/dashboard/developers/requests') },
          { name: 'settings', open: go('/dashboard/settings') },
          {
            name: 'settings-refused',
            open: via('/dashboard/settings', fillAndSend({ brandColor: 'blue' }), '.problem'),
          },
          { name: 'not-found', open: go('/dashboard/no-such-page') },
          {
            name: 'form-expired',
            open: via(
              '/dashboard/developers',
              (page) =>
                Promise.all([
                  page.waitForURL(/api-keys$/),
                  page.evaluate(() => {
                    const form = document.querySelector<HTMLFormElement>(
                      'form[action="/dashboard/developers/api-keys"]',
                    )!;
                    form.querySelector<HTMLInputElement>('input[name=csrf]')!.value = 'forged';
                    form.submit();
                  }),
                ]),
              'h1',
            ),
          },
        ];
        const kept = [
          'Tbilisi Shoes',
          'Karibche',
          'English',
          'GEL',
          'USD',
          'EUR',
          'Apple Pay',
          'Google Pay',
          'QR',
          'CSV',
          'IBAN',
          'RRN',
          'HTTP',
          'API',
          'URL',
          'payId',
          'merchantPaymentId',
          'extra2',
          'extra',
          'recId',
          'callbackUrl',
          'X-Callback-Signature',
          'Standard Webhooks',
          '{"PaymentId":"test_…"}',
          'data:image',
          'data:',
          'PNG, SVG, JPEG, GIF',
          'WebP',
          '#RRGGBB',
          'demo-merchant.json',
          'Winter boots',
          'KA',
          'EN',
        ];
        // One page signed in and one signed out, each navigated from state to state: a new page per
        // state, and a second one for axe, cost a renderer process, a second visit and a cold axe each.
        const contexts = {
          in: await signedInContext(login),
          out: await browser.newContext({ viewport: { width: 1280, height: 900 } }),
        };
        const pages = { in: await newPage(contexts.in), out: await newPage(contexts.out) };
        const findings: string[] = [];
        const notGeorgian: string[] = [];
        let englishWords = 0;
        let axeRuns = 0;
        let axeChecks = 0;
        let shots = 0;
        for (const lang of ['en', 'ka'] as Lang[]) {
          for (const state of states) {
            const name = `${state.name}-${lang}`;
            const page = pages[state.signedOut ? 'out' : 'in'];
            await page.setViewportSize({ width: WIDTHS[0], height: 900 });
            await state.open(page, lang);
            assert.equal(await page.locator('h1').count(), 1, `${name}: one h1`);
            assert.equal(await page.getAttribute('html', 'lang'), lang, name);
            const words = await untranslated(page, kept);
            if (lang === 'ka' && words.length) notGeorgian.push(`${name}: ${[...new Set(words)].join(' ')}`);
            if (lang === 'en') englishWords += words.length;
            await injectAxe(page);
            for (const width of WIDTHS) {
              await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
              const overflow = await page.evaluate(
                () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
              );
              assert.ok(overflow <= 0, `${name} @${width}: the page is ${overflow} px wider than the screen`);
              await screenshot(page, `dashboard-${name}-${width}`);
              shots++;
              const axe = await axeRun(page);
              axeRuns++;
              axeChecks += axe.passes;
              for (const v of axe.violations) findings.push(`${name} @${width}: ${v.impact} ${v.id} at ${v.where}`);
            }
          }
        }
        for (const c of Object.values(contexts)) await c.close();
        console.log(
          `[dashboard tour] ${states.length} pages × 2 languages: ${axeRuns} axe runs (${axeChecks} passed rules), ${shots} screenshots in ${SCREENSHOTS}`,
        );
        assert.deepEqual(findings, [], 'axe: no violation of any impact');
        assert.deepEqual(notGeorgian, [], 'no English left on Georgian pages');
        assert.ok(englishWords > 300, `the same check finds ${englishWords} English words on the English pages`);
        assert.ok(axeChecks > axeRuns * 10, 'axe checked the pages');
      });
    }

    it('raised no Content-Security-Policy violation on any page', () => {
      assert.deepEqual(cspViolations, []);
    });
  });
}
