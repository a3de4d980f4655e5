// Every language of the table on the pages people read: the dashboard follows the browser's
// Accept-Language until the user chooses (?lang=, remembered in a cookie); the checkout keeps the
// bank's rule (Georgian unless the payment says `language`, or the address asks with ?lang=); every
// page offers every other language in its switcher.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TEXTS as CHECKOUT } from '../checkout/i18n.ts';
import { TEXTS as DASHBOARD } from '../dashboard/i18n.ts';
import { BACKENDS } from '../testing/databases.ts';
import { DashboardBrowser, createDashboardUser } from '../testing/dashboard.ts';
import { basicPayment, useGateway } from '../testing/harness.ts';
import { DEFAULT_LANGUAGE, LANGUAGE_INFO, LANGUAGES, otherLanguages, type Language } from './languages.ts';

const htmlLang = (body: string) => /<html lang="([^"]+)">/.exec(body)?.[1];
/** The switcher's links: each language it offers with its address. */
const switcher = (body: string) =>
  [
    ...body.matchAll(
      /<a class="lang" href="([^"]+)" lang="([^"]+)" hreflang="[^"]+">(?:<svg[\s\S]*?<\/svg>)?(?:<span>)?([^<]+)/g,
    ),
  ].map((m) => ({ href: m[1]!.replaceAll('&amp;', '&'), lang: m[2]!, name: m[3]! }));

function assertSwitcher(body: string, lang: Language, where: string): void {
  const links = switcher(body);
  assert.deepEqual(
    links.map((l) => l.lang),
    otherLanguages(lang).map((o) => LANGUAGE_INFO[o].htmlLang),
    `${where}: the other languages`,
  );
  for (const l of links) {
    assert.equal(l.name, LANGUAGE_INFO[l.lang as Language].name, `${where}: named in itself`);
    assert.match(l.href, new RegExp(`[?&]lang=${l.lang}(&|$)`), where);
  }
}

let addresses = 0;
const address = () => `10.9.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

for (const backend of BACKENDS) {
  describe(`pages in every language [${backend}]`, () => {
    const ctx = useGateway(backend);

    it('dashboard: follows Accept-Language until the user chooses; a header it cannot use is the default, never a 5xx', async () => {
      const cases: [string, Language][] = [
        ['en', 'en'],
        ['en-US;q=0.9', 'en'],
        ['ka', 'ka'],
        ['de-DE,de;q=0.9', DEFAULT_LANGUAGE],
        ['\u00ff\u00fe;q=;;,,*;q=x', DEFAULT_LANGUAGE],
        ['', DEFAULT_LANGUAGE],
      ];
      for (const [header, lang] of cases) {
        const b = new DashboardBrowser(ctx.t.app, address());
        b.acceptLanguage = header;
        const res = await b.get('/dashboard/sign-in');
        assert.equal(res.statusCode, 200, header);
        assert.equal(htmlLang(res.body), LANGUAGE_INFO[lang].htmlLang, header);
        assert.ok(res.body.includes(DASHBOARD[lang].signInLead), header);
        assert.equal(b.cookies.get('kb_dash_lang'), undefined, 'following the browser is no choice to remember');
      }
      // A browser that sends no header at all.
      assert.equal(
        htmlLang((await new DashboardBrowser(ctx.t.app, address()).get('/dashboard/sign-in')).body),
        DEFAULT_LANGUAGE,
      );
    });

    it('dashboard: the user’s choice wins over the browser’s header, remembered until changed', async () => {
      for (const chosen of LANGUAGES) {
        for (const browser of LANGUAGES.filter((l) => l !== chosen)) {
          const b = new DashboardBrowser(ctx.t.app, address());
          b.acceptLanguage = browser;
          assert.equal(htmlLang((await b.get('/dashboard/sign-in')).body), browser);
          assert.equal(htmlLang((await b.get(`/dashboard/sign-in?lang=${chosen}`)).body), chosen);
          assert.equal(b.cookies.get('kb_dash_lang'), chosen);
          assert.equal(
            htmlLang((await b.get('/dashboard/sign-in')).body),
            chosen,
            'the remembered choice, not the header',
          );
        }
      }
    });

    it('dashboard: the sign-in page and a signed-in page in every language, each offering the others', async () => {
      const login = await createDashboardUser(ctx.t, ctx.m.credentials.clientId);
      const signedIn = await DashboardBrowser.signedIn(ctx.t, login, address());
      for (const lang of LANGUAGES) {
        const signIn = await new DashboardBrowser(ctx.t.app, address()).get(`/dashboard/sign-in?lang=${lang}`);
        assert.equal(signIn.statusCode, 200);
        assert.equal(htmlLang(signIn.body), LANGUAGE_INFO[lang].htmlLang);
        assert.ok(signIn.body.includes(DASHBOARD[lang].signInLead));
        assertSwitcher(signIn.body, lang, `sign-in ${lang}`);
        const payments = await signedIn.get(`/dashboard/payments?lang=${lang}`);
        assert.equal(payments.statusCode, 200);
        assert.equal(htmlLang(payments.body), LANGUAGE_INFO[lang].htmlLang);
        assert.ok(payments.body.includes(DASHBOARD[lang].paymentsTitle));
        assertSwitcher(payments.body, lang, `payments ${lang}`);
      }
    });

    it('checkout: the bank’s rule — Georgian unless the payment says `language` or the address asks; the browser’s header is not asked', async () => {
      const plain = (await ctx.m.createPayment(basicPayment())).json().payId as string;
      const english = (await ctx.m.createPayment(basicPayment({ language: 'EN' }))).json().payId as string;
      const page = (payId: string, query = '', headers: Record<string, string> = {}) =>
        ctx.t.app.inject({ method: 'GET', url: `/checkout/${payId}${query}`, headers });
      assert.equal(htmlLang((await page(plain, '', { 'accept-language': 'en-US,en;q=0.9' })).body), 'ka');
      assert.equal(htmlLang((await page(english, '', { 'accept-language': 'ka' })).body), 'en');
      for (const lang of LANGUAGES) {
        for (const payId of [plain, english]) {
          // The address's ?lang= in any case, as the checkout has always taken it.
          for (const query of [`?lang=${lang}`, `?lang=${lang.toUpperCase()}`]) {
            const res = await page(payId, query);
            assert.equal(res.statusCode, 200);
            assert.equal(htmlLang(res.body), LANGUAGE_INFO[lang].htmlLang, query);
            assert.ok(res.body.includes(CHECKOUT[lang].amountToPay), query);
            assertSwitcher(res.body, lang, `checkout ${query}`);
          }
        }
        // An error page speaks the address's language too, and switches.
        const missing = await ctx.t.app.inject({ method: 'GET', url: `/checkout/no-such-payment?lang=${lang}` });
        assert.equal(missing.statusCode, 404);
        assert.equal(htmlLang(missing.body), LANGUAGE_INFO[lang].htmlLang);
        assert.ok(missing.body.includes(CHECKOUT[lang].notFoundText));
        assertSwitcher(missing.body, lang, `checkout 404 ${lang}`);
      }
      // A language we do not speak is no choice: the payment's.
      assert.equal(htmlLang((await page(english, '?lang=de')).body), 'en');
      assert.equal(htmlLang((await page(plain, '?lang=%00')).body), 'ka');
    });
  });
}
