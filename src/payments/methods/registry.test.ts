// Walks the method registry: every method is named in every language, its sandbox choice
// round-trips through its module, and every method a customer can choose renders on the checkout
// (tile and panel), is paid with its own form or through simulate (the simulator settles it), and
// is named on the dashboard (list, detail, filter) and in the CLI's output.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LANGUAGES } from '../../i18n/languages.ts';
import { checkoutMethodOf } from '../../checkout/methods/index.ts';
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
import { checkChoice } from '../customer-choice.ts';
import { checkoutMethods } from '../methods.ts';
import { BUILT_IN, allMethods, methodLabel } from './index.ts';

describe('the method registry', () => {
  it('lists each built-in method once, with a name in every language', () => {
    assert.deepEqual(
      allMethods().map((m) => m.code),
      BUILT_IN.map((m) => m.code),
    );
    assert.equal(new Set(BUILT_IN.map((m) => m.key)).size, BUILT_IN.length);
    for (const m of allMethods()) {
      for (const lang of LANGUAGES) {
        assert.ok(m.names[lang].trim().length > 0, `${m.name}: a name in ${lang}`);
        assert.notEqual(methodLabel(m.code, lang), String(m.code), `${m.name}: never its bare code in ${lang}`);
      }
    }
  });

  it('turns each method’s sandbox approval into an attempt with that method (and a checkout method has a page)', () => {
    for (const m of allMethods()) {
      if (!m.traits.checkout) {
        assert.deepEqual(
          checkChoice(m.code, { outcome: 'approve' }, { year: 2026, month: 1 }),
          { ok: false, unknownMethod: true },
          `${m.name} is not chosen by a customer`,
        );
        continue;
      }
      assert.ok(m.sandboxApproval, `${m.name}: a sandbox approval`);
      assert.ok(checkoutMethodOf(m.code), `${m.name}: a checkout module`);
      const checked = checkChoice(m.code, m.sandboxApproval!, { year: 2026, month: 1 });
      assert.ok(checked.ok, `${m.name}: ${JSON.stringify(checked)}`);
      assert.equal(checked.details.method, m.code);
      // Only a simulated flow carries the customer's answer (for the simulator); a real one never does.
      assert.equal(checked.details.answer !== undefined, m.traits.simulated, m.name);
    }
  });
});

for (const backend of BACKENDS) {
  describe(`every method on every surface [${backend}]`, { timeout: 600_000 }, () => {
    let t: TestGateway;
    let shop: Awaited<ReturnType<typeof merchantWith>>;
    const chosen = allMethods().filter((m) => m.traits.checkout);
    before(async () => {
      t = await startTestGateway(backend);
      shop = await merchantWith(t, checkoutMethods());
    });
    after(() => t?.close());

    it('the checkout offers every method as a named tile in every language and draws its panel', async () => {
      await assertCheckoutShows(t, await paymentOffering(shop.m, t, chosen), chosen);
    });

    for (const m of chosen) {
      it(`${m.name} (${m.code}): paid on the checkout with its own form and through simulate, named on the dashboard and in the CLI`, async () => {
        const onPage = await paymentOffering(shop.m, t, [m]);
        // Web QR is answered in the banking app (the /qr page), not with a form of the pay page.
        const posted = await payOnCheckout(t, onPage, m);
        if (posted) await assertPaidWith(shop.m, t, onPage, m);
        else assert.equal(checkoutMethodOf(m.code)!.readForm({}), null, `${m.name}: no pay-page form`);
        const simulated = await paymentOffering(shop.m, t, [m]);
        await payBySimulate(t, simulated, m);
        const paid = await assertPaidWith(shop.m, t, simulated, m);
        await assertDashboardShows(shop.dashboard, simulated, m);
        assertCliShows(paid, m);
      });
    }
  });
}
