// Browser tests: Debian's Chromium driven by playwright-core (never a downloaded browser), against
// a test gateway listening on a free local port.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Backend } from './databases.ts';
import { startTestGateway, type TestGateway } from './harness.ts';
import { freePort } from './ports.ts';

export { freePort };

/**
 * Debian's headless shell (`apt-get install chromium-headless-shell`: the same Chromium release
 * built without the desktop browser around Blink, what Playwright itself runs headless), or the
 * full browser where it is not installed. Measured on this 2-core machine, 20 contexts of 4
 * navigations each: 17.7 s of the machine's CPU against 55 s with `/usr/bin/chromium`, whose
 * renderers and browser process (new-headless is the whole desktop browser) cost ~0.6 s per
 * navigation; the checkout's browser suite alone kept both cores busy for four minutes.
 * KARIBCHE_CHROMIUM names another binary.
 */
export const CHROMIUM =
  process.env.KARIBCHE_CHROMIUM ??
  (fs.existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium');

export const SCREENSHOTS = path.resolve('test-artifacts/screenshots');

export async function listeningGateway(
  backend: Backend,
  env: Record<string, string> = {},
  opts: { background?: boolean } = {},
): Promise<{ t: TestGateway; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestGateway(backend, { KARIBCHE_PUBLIC_URL: base, ...env }, opts);
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, base };
}

export function launchBrowser(): Promise<Browser> {
  // Said where a browser starts, not in every file that imports this module (freePort).
  if (!process.env.KARIBCHE_CHROMIUM && CHROMIUM === '/usr/bin/chromium')
    console.log(
      '[browser] /usr/bin/chromium-headless-shell is not installed: the browser tests run the full /usr/bin/chromium, about three times the CPU (apt-get install chromium-headless-shell)',
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Tallest screenshot taken, in CSS pixels: enough to review any page's layout, while a whole API
 * reference (tens of thousands of pixels) took over 30 s to capture on 2 loaded cores. */
const SCREENSHOT_MAX_HEIGHT = 6_000;

/**
 * The whole page, or its top SCREENSHOT_MAX_HEIGHT pixels. Capturing is not what a test judges, so it
 * may take up to two minutes on a loaded machine before it counts as broken.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const { width, height } = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  }));
  const clip = height > SCREENSHOT_MAX_HEIGHT ? { x: 0, y: 0, width, height: SCREENSHOT_MAX_HEIGHT } : undefined;
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true, clip, timeout: 120_000 });
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Puts axe-core into the page. Evaluated through the DevTools protocol, which the page's
 * Content-Security-Policy does not govern: the page is checked as its visitors get it (policy
 * enforced, no `bypassCSP` context), and the page's console still reports any CSP complaint. A
 * page that is navigated rather than opened anew keeps its renderer, where the second and later
 * evaluations of the same source come from V8's compilation cache (74 against 183 ms measured).
 */
export async function injectAxe(page: Page): Promise<void> {
  await page.evaluate(AXE_SOURCE);
}

/**
 * One axe-core run on the page as it is now (injectAxe first): how many rules passed, and the
 * violations. Only what the tests read crosses back to Node, not the whole result (every node of
 * every passed rule, with its HTML). axe's `resultTypes` keeps one node per passed, incomplete or
 * inapplicable rule; every rule still runs and every violation keeps all its nodes.
 */
export function axeRun(
  page: Page,
): Promise<{ passes: number; violations: { id: string; impact: string | null; where: string }[] }> {
  return page.evaluate(async () => {
    interface AxeResult {
      passes: unknown[];
      violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
    }
    const axe = (window as unknown as { axe: { run(o: object): Promise<AxeResult> } }).axe;
    const r = await axe.run({ resultTypes: ['violations'] });
    return {
      passes: r.passes.length,
      violations: r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        where: v.nodes.map((n) => n.target.join(' ')).join(', '),
      })),
    };
  });
}
