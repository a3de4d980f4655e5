// The docs site in Chromium: the home, a guide with the state diagram, a Georgian guide and the API
// reference at 1280 and 390 px — no Content-Security-Policy complaint, no serious axe-core
// finding, a skip link that works from the keyboard, nothing wider than the screen on a phone —
// with screenshots in test-artifacts/screenshots/docs-*.png. The pages do not depend on the
// database, so this runs on the first backend only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { BACKENDS } from '../testing/databases.ts';
import { axeRun, injectAxe, launchBrowser, listeningGateway, screenshot } from '../testing/browser.ts';
import type { TestGateway } from '../testing/harness.ts';

const PAGES = [
  ['home', '/docs'],
  ['lifecycle', '/docs/guides/lifecycle'],
  ['callbacks-ka', '/docs/guides/callbacks.ka'],
  ['api', '/docs/api'],
] as const;
const WIDTHS = [1280, 390] as const;

describe(`docs site in Chromium [${BACKENDS[0]}]`, { timeout: 300_000 }, () => {
  let t: TestGateway;
  let base: string;
  let browser: Browser;
  const csp: string[] = [];
  const axeFindings: string[] = [];
  let axeRuns = 0;
  before(async () => {
    ({ t, base } = await listeningGateway(BACKENDS[0]!));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const watch = (page: Page) =>
    page.on('console', (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) csp.push(`${page.url()}: ${msg.text()}`);
    });

  for (const width of WIDTHS) {
    it(`shows the pages at ${width} px without CSP complaints and without sideways scrolling; screenshots`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      try {
        for (const [name, url] of PAGES) {
          const page = await context.newPage();
          watch(page);
          const res = await page.goto(base + url);
          assert.equal(res?.status(), 200, url);
          // The stylesheet applied (the navigation is a grid column on a desktop, below the page on a phone).
          const navBelow = await page.evaluate(() => {
            const nav = document.getElementById('nav')!.getBoundingClientRect();
            const main = document.getElementById('main')!.getBoundingClientRect();
            return nav.top >= main.bottom - 1;
          });
          assert.equal(navBelow, width < 800, `${url}: navigation placement at ${width}`);
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          );
          assert.ok(overflow <= 0, `${url} scrolls sideways by ${overflow}px at ${width}`);
          if (name === 'lifecycle') {
            const box = await page.locator('figure.diagram svg').boundingBox();
            assert.ok(box && box.width > 300, 'the state diagram is drawn');
            assert.equal(await page.locator('figure.diagram svg[role="img"][aria-label]').count(), 1);
          }
          await screenshot(page, `docs-${name}-${width}`);
          // axe on the same visit (the policy stays enforced: axe comes in through the DevTools protocol).
          await injectAxe(page);
          const result = await axeRun(page);
          axeRuns++;
          for (const v of result.violations) {
            if (v.impact === 'serious' || v.impact === 'critical')
              axeFindings.push(`${url} at ${width}: ${v.id} at ${v.where}`);
          }
          await page.close();
        }
      } finally {
        await context.close();
      }
      assert.deepEqual(csp, []);
    });
  }

  it('has no serious or critical axe-core finding on any of the pages, at either width', () => {
    // axe ran on each page during the visits above, at each width.
    assert.equal(axeRuns, PAGES.length * WIDTHS.length, 'axe ran on every page at every width');
    assert.deepEqual(axeFindings, []);
  });

  it('finds a page with the search box and copies a code block with its button; screenshots', async () => {
    // The clipboard is read back to compare: the page may only write it, the test reads it.
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    try {
      const page = await context.newPage();
      watch(page);
      await page.goto(`${base}/docs`);
      const box = page.getByRole('searchbox', { name: 'Search the docs' });
      await box.fill('business-day rule');
      const first = page.locator('#search .results a').first();
      await first.waitFor();
      assert.equal(await first.textContent(), 'Refunds and the business-day rule');
      await screenshot(page, 'docs-search-1280');
      // Enter opens the first result; an operation of the reference is found too.
      await box.press('Enter');
      await page.waitForURL(`${base}/docs/guides/refunds`);
      const again = page.getByRole('searchbox', { name: 'Search the docs' });
      await again.fill('POST /v1/gateway/payments/execution');
      await page.locator('#search .results a[href="/docs/api#post-v1-gateway-payments-execution"]').waitFor();
      await again.fill('no-such-word-anywhere');
      await page.locator('#search .results .none').waitFor();

      await page.goto(`${base}/docs/guides/quickstart`);
      // The served page names this gateway's own address where the file says 127.0.0.1:8080.
      const block = page.locator('.code').filter({ hasText: `BASE=${base}` });
      const button = block.getByRole('button', { name: 'Copy: sh' });
      await button.click();
      await page.waitForFunction(() =>
        [...document.querySelectorAll('button.copy')].some((b) => b.textContent === 'Copied'),
      );
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert.equal(copied, await block.locator('code').textContent());
      assert.ok(copied.startsWith(`BASE=${base}\nAPI_KEY=$(node -p`), copied.slice(0, 80));
      assert.equal(
        await page.locator('pre').count(),
        await page.locator('.code button.copy').count(),
        'a button on every code block',
      );
      await screenshot(page, 'docs-copy-1280');
    } finally {
      await context.close();
    }
    assert.deepEqual(csp, []);
  });

  it('lets a keyboard user skip to the content and reach the navigation', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${base}/docs/guides/quickstart`);
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to the content');
      // A jump within the page commits its address a moment after the key press: on a loaded
      // machine the next line ran before it (CI run of stop 30), so each step waits for its address.
      await page.keyboard.press('Enter');
      await page.waitForURL(/#main$/, { timeout: 10_000 });
      // On a phone the menu link jumps to the navigation below the page.
      await page.click('a.menu');
      await page.waitForURL(/#nav$/, { timeout: 10_000 });
      await page.locator('#nav a[aria-current="page"]').waitFor({ state: 'visible', timeout: 10_000 });
    } finally {
      await context.close();
    }
  });
});
