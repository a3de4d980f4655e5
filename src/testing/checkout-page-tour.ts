// Every page and state of the checkout, for the browser tests that screenshot them and run axe on
// them in both languages. Payments are put into their states through the merchant API and the
// sandbox simulate endpoint; the few states that only exist as the answer to a form (validation
// errors, a failed bank login) are reached by filling the form. Selectors are form field names, so
// the tour does not depend on the wording it is checking.
import type { Page } from 'playwright-core';
import { EVERYTHING, MerchantClient, accessToken, basicPayment, type TestGateway } from './harness.ts';

export type Lang = 'ka' | 'en';

export interface TourState {
  name: string;
  /** Shows the state in `page`, in the given language. */
  open(page: Page, lang: Lang): Promise<void>;
}

/** The shop's own texts on the tour's pages (a page shows them as the shop wrote them). */
export const MERCHANT_TEXTS = ['Test Shop', 'Order #1001 — winter jacket', 'Television 55"', 'Wall mount'];

const PRODUCTS = [
  { name: 'Television 55"', price: '1249.00', quantity: 1 },
  { name: 'Wall mount', price: '25.50', quantity: 2 },
];

/**
 * Payments the tour leaves open live this long. The tour takes minutes (11 on a loaded CI host), and
 * an open page reloads itself when its countdown reaches zero: with the default 12 minutes a page
 * opened late in the tour navigated away under the test's feet. The tour must not depend on its own
 * duration.
 */
const TOUR_EXPIRY_MINUTES = 24 * 60;

/** Creates the payments behind the tour's states. The clock moves 61 s forward (one payment expires). */
export async function checkoutTour(t: TestGateway, m: MerchantClient): Promise<TourState[]> {
  m.token = await accessToken(t.app, m.credentials);
  const publicUrl = t.gw.services.config.publicUrl;
  /** A payment of `client`'s (the tour's merchant unless another shop is named), open for the whole tour. */
  const create = async (over: Record<string, unknown> = {}, client: MerchantClient = m): Promise<string> => {
    const res = await client.createPayment(
      basicPayment({
        returnurl: 'http://127.0.0.1:9/shop/return',
        description: MERCHANT_TEXTS[1],
        amount: { currency: 'GEL', total: '1249.90' },
        expirationMinutes: TOUR_EXPIRY_MINUTES,
        ...over,
      }),
    );
    if (res.statusCode !== 200) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
    return res.json().payId;
  };
  const simulate = async (payId: string, body: Record<string, unknown>) => {
    const res = await t.admin('POST', `/sandbox/v1/payments/${payId}/simulate`, body);
    if (res.statusCode !== 200) throw new Error(`simulate failed: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const merchantCall = async (url: string, body: unknown) => {
    const res = await m.post(url, body);
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  };
  const visit =
    (payId: string, query = '') =>
    async (page: Page, lang: Lang) => {
      await page.goto(`${publicUrl}/checkout/${payId}?lang=${lang}${query}`);
    };
  const submit = async (page: Page, button = 'form button[type=submit]') => {
    await Promise.all([page.waitForNavigation(), page.locator(button).first().click()]);
  };
  /** A new payment taken to its 3-D Secure step through the card form, as a customer gets there. */
  const challenge = async (page: Page, lang: Lang) => {
    await visit(await create(), '&method=5')(page, lang);
    await page.locator('input[name=number]').fill('4000 0000 0000 3220');
    await page.locator('input[name=expiry]').fill('12/30');
    await page.locator('input[name=securityCode]').fill('123');
    await page.locator('input[name=holder]').fill('Nino Beridze');
    await submit(page);
  };

  const open = await create();
  const installment = await create({
    methods: [8, 5],
    amount: { currency: 'GEL', total: '1300.00' },
    installmentProducts: PRODUCTS,
  });

  const declined = await create();
  await simulate(declined, { card: '4000000000009995' });
  const cancelled3ds = await create();
  await simulate(cancelled3ds, { card: '4000000000003220', otp: '' });
  const processing = await create();
  await simulate(processing, { card: '4000000000000770' });

  const succeeded = await create({ amount: { currency: 'EUR', total: '999999.99' } });
  await simulate(succeeded, { card: '4111111111111111', holder: 'NINO BERIDZE' });
  const authorised = await create({ preAuth: true });
  await simulate(authorised, { card: '5555555555554444' });
  const failed = await create();
  for (let i = 0; i < t.gw.services.config.maxAttempts; i++) await simulate(failed, { card: '4000000000000002' });
  const returned = await create();
  await simulate(returned, { card: '4111111111111111' });
  await merchantCall(`/v1/gateway/payments/${returned}/cancel`, {});
  const partial = await create();
  await simulate(partial, { card: '4111111111111111' });
  await merchantCall(`/v1/gateway/payments/${partial}/cancel`, { amount: '100.00' });
  const expired = await create({ expirationMinutes: 1 });
  await t.gw.services.sharedClock.advance(61);
  await t.gw.services.sweeper.sweep();

  // A shop with a light brand colour and a logo of its own: text on it must stay readable.
  const logo = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="8" fill="#1d3557"/><circle cx="20" cy="20" r="9" fill="#ffcc00"/></svg>').toString('base64')}`;
  const branded = await MerchantClient.create(t, {
    ...EVERYTHING,
    name: MERCHANT_TEXTS[0],
    brandColor: '#ffcc00',
    logoUrl: logo,
  });
  const brandedPay = (
    await branded.createPayment(
      basicPayment({ description: MERCHANT_TEXTS[1], expirationMinutes: TOUR_EXPIRY_MINUTES }),
    )
  ).json().payId as string;

  // A shop that takes Ertguli points (6) besides everything else: seven methods on the page.
  const pointsShop = await MerchantClient.create(t, {
    ...EVERYTHING,
    name: MERCHANT_TEXTS[0],
    methods: [...EVERYTHING.methods, 6],
  });
  const pointsPayment = () => create({}, pointsShop);
  const points = await pointsPayment();
  const pointsDeclined = await pointsPayment();
  await simulate(pointsDeclined, { method: 6, outcome: 'decline' });
  const pointsPaid = await pointsPayment();
  await simulate(pointsPaid, { method: 6, outcome: 'approve' });

  const qrPage = await t.app.inject({ method: 'GET', url: `/checkout/${open}?method=4` });
  const qrPath = /\/checkout\/[0-9a-f]+\/qr\/[^"?&]+/.exec(qrPage.body)?.[0];
  if (!qrPath) throw new Error('no banking app link on the QR page');
  const qrDone = await create();
  const qrDonePage = await t.app.inject({ method: 'GET', url: `/checkout/${qrDone}?method=4` });
  const qrDonePath = /\/checkout\/[0-9a-f]+\/qr\/[^"?&]+/.exec(qrDonePage.body)![0];
  await simulate(qrDone, { method: 4, outcome: 'approve' });
  // The banking app answered "approve in 5 minutes" (sandbox): the bank has not decided yet.
  const qrLater = await create();
  const qrLaterPath = /\/checkout\/[0-9a-f]+\/qr\/[^"?&]+/.exec(
    (await t.app.inject({ method: 'GET', url: `/checkout/${qrLater}?method=4` })).body,
  )![0];
  await simulate(qrLater, { method: 4, outcome: 'approve', later: true });

  return [
    { name: 'pay-card', open: visit(open, '&method=5') },
    { name: 'pay-card-branded', open: visit(brandedPay, '&method=5') },
    {
      name: 'pay-card-errors',
      open: async (page, lang) => {
        await visit(open, '&method=5')(page, lang);
        await page.locator('input[name=number]').fill('4111 1111 1111 1112');
        await page.locator('input[name=expiry]').fill('01/20');
        await page.locator('input[name=securityCode]').fill('1');
        await submit(page);
      },
    },
    { name: 'pay-qr', open: visit(open, '&method=4') },
    { name: 'pay-bank', open: visit(open, '&method=7') },
    {
      name: 'pay-bank-login-failed',
      open: async (page, lang) => {
        await visit(open, '&method=7')(page, lang);
        await page.locator('input[name=username]').fill('demo');
        await page.locator('input[name=password]').fill('wrong');
        await submit(page);
      },
    },
    { name: 'pay-apple-pay', open: visit(open, '&method=9') },
    { name: 'pay-google-pay', open: visit(open, '&method=14') },
    { name: 'pay-installment', open: visit(installment, '&method=8') },
    { name: 'pay-points', open: visit(points, '&method=6') },
    { name: 'pay-points-declined', open: visit(pointsDeclined, '&method=6') },
    { name: 'pay-points-cancelled', open: visit(points, '&method=6&notice=points-cancelled') },
    { name: 'result-points', open: visit(pointsPaid) },
    { name: 'pay-declined', open: visit(declined) },
    { name: 'pay-wallet-cancelled', open: visit(open, '&method=9&notice=wallet-cancelled') },
    { name: 'pay-installment-cancelled', open: visit(installment, '&method=8&term=12&notice=installment-cancelled') },
    { name: 'pay-3ds-cancelled', open: visit(cancelled3ds, '&notice=3ds-cancelled') },
    { name: '3ds-challenge', open: challenge },
    {
      name: '3ds-code-sent',
      open: async (page, lang) => {
        await challenge(page, lang);
        await submit(page, 'button[name=action][value=resend]');
      },
    },
    { name: 'processing', open: visit(processing) },
    { name: 'result-succeeded', open: visit(succeeded) },
    { name: 'result-authorised', open: visit(authorised) },
    { name: 'result-failed', open: visit(failed) },
    { name: 'result-returned', open: visit(returned) },
    { name: 'result-partial-returned', open: visit(partial) },
    { name: 'result-expired', open: visit(expired) },
    { name: 'bank-app', open: async (page, lang) => void (await page.goto(`${publicUrl}${qrPath}?lang=${lang}`)) },
    {
      name: 'bank-app-done',
      open: async (page, lang) => void (await page.goto(`${publicUrl}${qrDonePath}?lang=${lang}`)),
    },
    {
      name: 'bank-app-later',
      open: async (page, lang) => void (await page.goto(`${publicUrl}${qrLaterPath}?lang=${lang}`)),
    },
    {
      name: 'not-found',
      open: async (page, lang) => void (await page.goto(`${publicUrl}/checkout/${'0'.repeat(32)}?lang=${lang}`)),
    },
  ];
}
