// The method tiles of the checkout on the narrowest phone (320 px, issue 26): every tile's label
// stays inside its tile with room to spare, in Georgian (ინტერნეტბანკი, the longest word) and in
// English, with six and with seven methods. Screenshots: test-artifacts/screenshots/checkout-tiles-*.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { BACKENDS } from '../testing/databases.ts';
import { launchBrowser, listeningGateway, screenshot } from '../testing/browser.ts';
import { EVERYTHING, MerchantClient, basicPayment, type TestGateway } from '../testing/harness.ts';

/** Space a label keeps from its tile's border on every side, in CSS pixels (the border included). */
const MIN_GAP = 6;

describe(`checkout method tiles at 320 px [${BACKENDS[0]}]`, { timeout: 300_000 }, () => {
  let t: TestGateway;
  let browser: Browser;
  before(async () => {
    ({ t } = await listeningGateway(BACKENDS[0]!));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [label, methods] of [
    ['six', EVERYTHING.methods],
    ['seven', [...EVERYTHING.methods, 6]],
  ] as const) {
    it(`${label} methods: every label inside its tile with ${MIN_GAP} px to spare, in Georgian and English`, async () => {
      const m = await MerchantClient.create(t, { ...EVERYTHING, methods });
      const res = await m.createPayment(
        basicPayment({ methods, installmentProducts: [{ name: 'Television', price: '10.00', quantity: 1 }] }),
      );
      assert.equal(res.statusCode, 200, res.body);
      const ctx = await browser.newContext({ viewport: { width: 320, height: 700 } });
      try {
        for (const lang of ['ka', 'en']) {
          const page = await ctx.newPage();
          await page.goto(`${res.json().links[1].uri}?lang=${lang}`);
          await screenshot(page, `checkout-tiles-${label}-${lang}-320`);
          // Each tile's box against the box of its text (a Range around the text nodes: the glyphs' own extent).
          const tiles = await page.locator('.methods a').evaluateAll((links) =>
            links.map((a) => {
              const box = a.getBoundingClientRect();
              const range = document.createRange();
              range.selectNodeContents(a);
              const texts = [...a.childNodes].filter(
                (n) => n.nodeType === Node.TEXT_NODE || (n as Element).matches?.('span:not(.glyph)'),
              );
              const rects = texts.flatMap((n) => {
                const r = document.createRange();
                r.selectNodeContents(n);
                return [...r.getClientRects()];
              });
              const text = {
                left: Math.min(...rects.map((r) => r.left)),
                right: Math.max(...rects.map((r) => r.right)),
                top: Math.min(...rects.map((r) => r.top)),
                bottom: Math.max(...rects.map((r) => r.bottom)),
              };
              return {
                label: (a.textContent ?? '').replace(/\u00ad/g, '').trim(),
                tile: { left: box.left, right: box.right, top: box.top, bottom: box.bottom },
                text,
                overflow: a.scrollWidth > a.clientWidth,
              };
            }),
          );
          assert.equal(tiles.length, methods.length, `${lang}: one tile per method`);
          assert.ok(
            tiles.some((x) => x.label.includes(lang === 'ka' ? 'ინტერნეტბანკი' : 'Internet bank')),
            tiles.map((x) => x.label).join(' | '),
          );
          for (const x of tiles) {
            const gaps = {
              left: x.text.left - x.tile.left,
              right: x.tile.right - x.text.right,
              top: x.text.top - x.tile.top,
              bottom: x.tile.bottom - x.text.bottom,
            };
            assert.ok(
              Object.values(gaps).every((g) => g >= MIN_GAP) && !x.overflow,
              `${lang} "${x.label}": text ${JSON.stringify(gaps)} px from the border (at least ${MIN_GAP}), overflowing ${x.overflow}`,
            );
          }
          // Nothing wider than the phone: no sideways scrolling.
          assert.ok(
            await page.evaluate(() => document.documentElement.scrollWidth <= 320),
            `${lang}: the page scrolls sideways`,
          );
          await page.close();
        }
      } finally {
        await ctx.close();
      }
    });
  }
});
