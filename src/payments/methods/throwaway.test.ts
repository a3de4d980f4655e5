// A method that exists only in this test — a domain module and a checkout module, registered through
// the registries and nowhere else — reaches the checkout (tile, panel, its form), the sandbox
// simulate endpoint (the simulator settles it), the dashboard and the CLI: a module is all a method needs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerCheckoutMethod, type CheckoutMethod } from '../../checkout/methods/index.ts';
import { languageOf } from '../../checkout/methods/method.ts';
import { spotForm } from '../../checkout/methods/spot.ts';
import { LANGUAGES, type Language } from '../../i18n/languages.ts';
import { base, hiddenFields, type PageContext } from '../../checkout/layout.ts';
import { icon } from '../../checkout/marks.ts';
import { BACKENDS } from '../../testing/databases.ts';
import { startTestGateway, type TestGateway } from '../../testing/harness.ts';
import {
  assertCheckoutShows,
  assertCliShows,
  assertDashboardShows,
  assertPaidWith,
  merchantWith,
  payBySimulate,
  payOnCheckout,
  paymentOffering,
} from '../../testing/method-surfaces.ts';
import { html } from '../../html/html.ts';
import { checkoutMethods } from '../methods.ts';
import { methodOf, registerMethod } from './index.ts';
import { defineMethod, spotAnswer, type MethodTraits } from './method.ts';

const traits: MethodTraits = {
  checkout: true,
  currencies: null,
  preAuth: false,
  split: false,
  savesCard: false,
  simulated: true,
  needsProducts: false,
  delayable: false,
};

const voucher = defineMethod({
  code: 990,
  key: 'testVoucher',
  name: 'Test voucher',
  names: { ka: 'სატესტო ვაუჩერი', en: 'Test voucher' },
  traits,
  sandboxApproval: { outcome: 'approve' },
  choose: (input) => spotAnswer(990, traits, input),
});

// The page's own texts, per language, kept in the module as a new method's are.
const TEXTS: Record<Language, { redeem: string; cancelled: string }> = {
  ka: { redeem: 'ვაუჩერის გამოყენება', cancelled: 'ვაუჩერი არ იქნა გამოყენებული.' },
  en: { redeem: 'Redeem the voucher', cancelled: 'The voucher was not redeemed.' },
};

const voucherPage: CheckoutMethod = {
  code: 990,
  order: 5,
  icon: () => icon('star'),
  panel: (c: PageContext) =>
    html`<form class="panel voucher" method="post" action="${base(c)}/pay">${hiddenFields(c, 990)}<button type="submit" name="outcome" value="approve" class="primary">${TEXTS[languageOf(c.t)].redeem}</button></form>`,
  readForm: (form) => spotForm(form, 'voucher-cancelled'),
  notices: { 'voucher-cancelled': (t) => TEXTS[languageOf(t)].cancelled },
};

for (const backend of BACKENDS) {
  describe(`a throwaway method registered in a test reaches every surface [${backend}]`, { timeout: 600_000 }, () => {
    let t: TestGateway;
    let shop: Awaited<ReturnType<typeof merchantWith>>;
    const unregister: (() => void)[] = [];
    before(async () => {
      unregister.push(registerMethod(voucher), registerCheckoutMethod(voucherPage));
      t = await startTestGateway(backend);
      shop = await merchantWith(t, [5, 990]);
    });
    after(async () => {
      await t?.close();
      for (const off of unregister) off();
    });
    const v = () => methodOf(990)!;

    it('is one a merchant may enable and a customer may choose', () => {
      assert.ok(checkoutMethods().includes(990));
    });

    it('appears on the checkout beside the card, named in every language, with its own panel', async () => {
      await assertCheckoutShows(t, await paymentOffering(shop.m, t, [methodOf(5)!, v()]), [v()]);
    });

    it('speaks every language on its panel, and its cancellation leads back to the page with its own notice', async () => {
      const payId = await paymentOffering(shop.m, t, [v()]);
      for (const lang of LANGUAGES) {
        assert.match(
          (await t.app.inject({ method: 'GET', url: `/checkout/${payId}?lang=${lang}` })).body,
          new RegExp(TEXTS[lang].redeem),
        );
        assert.match(
          (await t.app.inject({ method: 'GET', url: `/checkout/${payId}?lang=${lang}&notice=voucher-cancelled` })).body,
          new RegExp(TEXTS[lang].cancelled),
        );
      }
    });

    it('is paid with its form and through simulate, and is named on the dashboard and in the CLI', async () => {
      const onPage = await paymentOffering(shop.m, t, [v()]);
      assert.equal(await payOnCheckout(t, onPage, v()), 1);
      await assertPaidWith(shop.m, t, onPage, v());
      const simulated = await paymentOffering(shop.m, t, [v()]);
      await payBySimulate(t, simulated, v());
      const paid = await assertPaidWith(shop.m, t, simulated, v());
      await assertDashboardShows(shop.dashboard, simulated, v());
      assertCliShows(paid, v());
    });

    it('leaves every list of methods when it is removed', () => {
      const off = registerMethod({ ...voucher, code: 991, choose: (input) => spotAnswer(991, traits, input) });
      assert.ok(checkoutMethods().includes(991));
      off();
      assert.ok(!checkoutMethods().includes(991));
    });
  });
}
