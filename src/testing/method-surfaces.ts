// Test-only helpers of the method registry's tests (src/payments/methods/*.test.ts): a method
// walked through every surface — the checkout page and its form, the sandbox simulate endpoint,
// the dashboard's list, detail and filter, the CLI's output — in every language.
import assert from 'node:assert/strict';
import { describe as cliDescribe } from '../cli/payments-commands.ts';
import type { Payment } from '../../sdk/src/index.ts';
import { LANGUAGES } from '../i18n/languages.ts';
import { DashboardBrowser, createDashboardUser } from './dashboard.ts';
import { MerchantClient, accessToken, basicPayment, type TestGateway } from './harness.ts';
import type { ChoiceInput, PaymentMethod } from '../payments/methods/method.ts';

/** What a browser shows: entities read, soft hyphens (tile labels) dropped. */
const shown = (html: string) =>
  html
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\u00ad/g, '');

/** The sandbox simulate body of a choice (its field names: card, cvc). */
export function simulateBody(code: number, c: ChoiceInput): Record<string, unknown> {
  return {
    method: code,
    ...(c.card ? { card: c.card.number, expiry: c.card.expiry, cvc: c.card.securityCode, holder: c.card.holder } : {}),
    ...(c.login ? { username: c.login.username, password: c.login.password } : {}),
    ...(c.outcome ? { outcome: c.outcome } : {}),
  };
}

/** The checkout form fields of a choice (the panels' field names). */
export function formFields(c: ChoiceInput): Record<string, string> {
  return {
    ...(c.card
      ? { number: c.card.number, expiry: c.card.expiry, securityCode: c.card.securityCode, holder: c.card.holder }
      : {}),
    ...(c.login ? { username: c.login.username, password: c.login.password } : {}),
    ...(c.outcome ? { outcome: c.outcome } : {}),
  };
}

/** A merchant that has every method given switched on, and a dashboard user of it. */
export async function merchantWith(t: TestGateway, methods: number[]) {
  const m = await MerchantClient.create(t, {
    currencies: ['GEL', 'USD', 'EUR'],
    methods,
    splitEnrolled: true,
    saveCardEnabled: true,
    callbackUrlPrefixes: ['https://shop.example/callbacks'],
  });
  const dashboard = await DashboardBrowser.signedIn(t, await createDashboardUser(t, m.credentials.clientId));
  return { m, dashboard };
}

/** A payment offering exactly `methods` (with the products and the currency they need). */
export async function paymentOffering(m: MerchantClient, t: TestGateway, methods: PaymentMethod[]): Promise<string> {
  m.token = await accessToken(t.app, m.credentials);
  const currency = methods.find((x) => x.traits.currencies)?.traits.currencies?.[0] ?? 'GEL';
  const products = methods.some((x) => x.traits.needsProducts)
    ? { installmentProducts: [{ name: 'Chair', price: 10, quantity: 1 }] }
    : {};
  const res = await m.createPayment(
    basicPayment({ amount: { currency, total: 10 }, methods: methods.map((x) => x.code), ...products }),
  );
  assert.equal(res.statusCode, 200, res.body);
  return res.json().payId;
}

/** The checkout page offers every method as a tile named in each language, and draws each one's panel. */
export async function assertCheckoutShows(t: TestGateway, payId: string, methods: PaymentMethod[]): Promise<void> {
  for (const lang of LANGUAGES) {
    const page = await t.app.inject({ method: 'GET', url: `/checkout/${payId}?lang=${lang}` });
    assert.equal(page.statusCode, 200);
    const nav = shown(/<nav class="methods"[\s\S]*?<\/nav>/.exec(page.body)?.[0] ?? '');
    for (const x of methods) {
      assert.match(
        nav,
        new RegExp(
          `href="/checkout/${payId}\\?method=${x.code}&lang=${lang}"[^>]*>(?:(?!</a>)[\\s\\S])*<span>${x.names[lang]}</span>`,
        ),
        `${x.name}: its tile in ${lang}`,
      );
      const selected = await t.app.inject({ method: 'GET', url: `/checkout/${payId}?lang=${lang}&method=${x.code}` });
      assert.equal(selected.statusCode, 200);
      assert.match(
        selected.body,
        new RegExp(`href="/checkout/${payId}\\?method=${x.code}&amp;lang=${lang}" aria-current="page"`),
        `${x.name}: its panel is the selected one`,
      );
      assert.match(selected.body, /class="panel[^"]*"/, `${x.name}: a panel is drawn`);
    }
  }
}

/** The customer pays on the checkout page with the method's own form (the panel's hidden fields and the sandbox's approval). */
export async function payOnCheckout(t: TestGateway, payId: string, x: PaymentMethod): Promise<number> {
  const browser = new DashboardBrowser(t.app); // keeps the checkout's CSRF cookie as a browser does
  const page = await browser.get(`/checkout/${payId}?method=${x.code}&lang=en`);
  const form = /<form class="panel[^"]*" method="post" action="[^"]*\/pay"[\s\S]*?<\/form>/.exec(page.body)?.[0];
  if (!form) return 0;
  const hidden = Object.fromEntries(
    [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((h) => [h[1]!, h[2]!]),
  );
  assert.equal(hidden.method, String(x.code), `${x.name}: its form posts its code`);
  const res = await browser.post(`/checkout/${payId}/pay`, { ...hidden, ...formFields(x.sandboxApproval!) });
  assert.equal(res.statusCode, 303, res.body.slice(0, 300));
  return 1;
}

/** Pays through the sandbox simulate endpoint with the method's sandbox approval: the simulator settles it. */
export async function payBySimulate(t: TestGateway, payId: string, x: PaymentMethod): Promise<void> {
  const res = await t.admin('POST', `/sandbox/v1/payments/${payId}/simulate`, simulateBody(x.code, x.sandboxApproval!));
  assert.equal(res.statusCode, 200, res.body);
}

/** The payment is settled, paid with the method. */
export async function assertPaidWith(
  m: MerchantClient,
  t: TestGateway,
  payId: string,
  x: PaymentMethod,
): Promise<Payment> {
  m.token = await accessToken(t.app, m.credentials);
  const p = (await m.getPayment(payId)).json() as Payment;
  assert.equal(p.status, 'Succeeded', `${x.name}: settled (${p.resultCode})`);
  assert.equal(p.paymentMethod, x.code);
  return p;
}

/** The dashboard names the method in every language: the list's row, the detail ("method", "methods offered"), the filter, the settings. */
export async function assertDashboardShows(
  dashboard: DashboardBrowser,
  payId: string,
  x: PaymentMethod,
): Promise<void> {
  for (const lang of LANGUAGES) {
    const name = x.names[lang];
    const list = shown((await dashboard.get(`/dashboard/payments?lang=${lang}`)).body);
    const row = new RegExp(`<tr>(?:(?!</tr>)[\\s\\S])*${payId}(?:(?!</tr>)[\\s\\S])*</tr>`).exec(list)?.[0] ?? '';
    assert.ok(row.includes(`>${name}<`), `${x.name}: named "${name}" in the list's row (${lang})`);
    assert.match(
      list,
      new RegExp(`<option value="${x.code}"[^>]*>${name}</option>`),
      `${x.name}: in the method filter (${lang})`,
    );
    const detail = shown((await dashboard.get(`/dashboard/payments/${payId}?lang=${lang}`)).body);
    assert.ok(
      detail.split(name).length - 1 >= 3,
      `${x.name}: named in the detail's overview, method and methods offered (${lang})`,
    );
    assert.doesNotMatch(detail, new RegExp(`<dd>${x.code}</dd>`), `${x.name}: never shown as its bare code (${lang})`);
    const settings = shown((await dashboard.get(`/dashboard/settings?lang=${lang}`)).body);
    assert.ok(settings.includes(name), `${x.name}: among the merchant's methods in the settings (${lang})`);
  }
}

/** `karibche payments get` shows the method by its name. */
export function assertCliShows(p: Payment, x: PaymentMethod): void {
  assert.match(cliDescribe(p), new RegExp(`^paymentMethod +${x.code} \\(${x.names.en}\\)$`, 'm'));
}
