// The checkout page in a real browser: every method, 3-D Secure, retries, expiry, both languages,
// keyboard only, and without JavaScript. Screenshots of each main screen go to test-artifacts/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BACKENDS } from '../testing/databases.ts';
import { launchBrowser, listeningGateway, screenshot } from '../testing/browser.ts';
import { MerchantClient, basicPayment, type TestGateway } from '../testing/harness.ts';

for (const backend of BACKENDS) {
  describe(`checkout in Chromium [${backend}]`, { timeout: 180_000 }, () => {
    let t: TestGateway;
    let m: MerchantClient;
    let browser: Browser;
    let context: BrowserContext;
    const cspViolations: string[] = [];
    before(async () => {
      ({ t } = await listeningGateway(backend));
      m = await MerchantClient.create(t);
      browser = await launchBrowser();
      context = await browser.newContext({ viewport: { width: 480, height: 900 } });
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    const shot = (page: Page, name: string) => (backend === BACKENDS[0] ? screenshot(page, name) : Promise.resolve());

    async function open(over: Record<string, unknown> = {}, query = '?lang=en'): Promise<{ page: Page; payId: string }> {
      const res = await m.createPayment(basicPayment({ returnurl: 'http://127.0.0.1:9/shop/return', ...over }));
      assert.equal(res.statusCode, 200, res.body);
      const page = await context.newPage();
      page.on('console', (msg) => {
        if (/Content Security Policy|Refused to/i.test(msg.text())) cspViolations.push(msg.text());
      });
      await page.goto(res.json().links[1].uri + query);
      return { page, payId: res.json().payId };
    }

    async function payByCard(page: Page, card: string, holder = 'Nino Beridze') {
      await page.getByLabel('Card number').fill(card);
      await page.getByLabel('Expiry date').fill('12/30');
      await page.getByLabel('Security code').fill('123');
      await page.getByLabel('Cardholder name').fill(holder);
      await page.getByRole('button', { name: /^Pay / }).click();
    }

    const status = async (payId: string) => (await m.getPayment(payId)).json();

    it('frictionless card payment shows the info message and returns to the shop', async () => {
      const { page, payId } = await open({ description: 'Order #1001', amount: { currency: 'GEL', total: '49.90' } });
      assert.equal(await page.locator('.amount').textContent(), '49.90 GEL');
      await page.getByText('Order #1001').waitFor();
      await shot(page, '01-card-form-en');
      await payByCard(page, '4111 1111 1111 1111');
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      await shot(page, '02-success-en');
      assert.equal(await page.getByRole('link', { name: 'Return to shop' }).getAttribute('href'), 'http://127.0.0.1:9/shop/return');
      const p = await status(payId);
      assert.equal(p.status, 'Succeeded');
      assert.equal(p.paymentCardNumber, '411111******1111');
      await page.close();
    });

    it('validates the card form on the server and keeps the customer on the page', async () => {
      const { page, payId } = await open();
      await page.getByLabel('Card number').fill('4111 1111 1111 1112');
      await page.getByLabel('Expiry date').fill('01/20');
      await page.getByLabel('Security code').fill('1');
      await page.getByRole('button', { name: /^Pay / }).click();
      await page.getByText('Check the card number').waitFor();
      await page.getByText('This card has expired').waitFor();
      await page.getByText('Enter the 3 or 4 digit security code').waitFor();
      assert.equal(await page.getByLabel('Card number').getAttribute('aria-invalid'), 'true');
      await shot(page, '03-card-errors-en');
      assert.equal((await status(payId)).status, 'Created');
      await page.close();
    });

    it('3-D Secure: code 1234 approves', async () => {
      const { page, payId } = await open();
      await payByCard(page, '4000000000003220');
      await page.getByRole('heading', { name: '3-D Secure verification' }).waitFor();
      await shot(page, '04-3ds-challenge-en');
      await page.getByLabel('One-time code').fill('1234');
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      assert.equal((await status(payId)).status, 'Succeeded');
      await page.close();
    });

    it('3-D Secure: a wrong code declines, the customer retries and pays', async () => {
      const { page, payId } = await open();
      await payByCard(page, '4000000000003220');
      await page.getByLabel('One-time code').fill('0000');
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByText('3-D Secure verification failed.').waitFor();
      await page.getByText('Attempts left: 2').waitFor();
      await shot(page, '05-declined-retry-en');
      await payByCard(page, '5555 5555 5555 4444');
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      assert.equal((await status(payId)).status, 'Succeeded');
      await page.close();
    });

    it('a decline then a successful retry; three declines fail the payment', async () => {
      const { page, payId } = await open();
      await payByCard(page, '4000000000009995');
      await page.getByText('There are not enough funds on the account.').waitFor();
      await payByCard(page, '4111111111111111');
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      assert.equal((await status(payId)).status, 'Succeeded');
      await page.close();

      const second = await open();
      for (let i = 0; i < 3; i++) await payByCard(second.page, '4000000000000002');
      await second.page.getByRole('heading', { name: 'Payment failed' }).waitFor();
      await shot(second.page, '06-failed-en');
      assert.equal((await status(second.payId)).status, 'Failed');
      await second.page.close();
    });

    it('shows an expired payment as expired after the clock moves past it', async () => {
      const { page, payId } = await open({ expirationMinutes: 1 });
      await t.gw.services.sharedClock.advance(61);
      await page.reload();
      await page.getByRole('heading', { name: 'The payment has expired' }).waitFor();
      await shot(page, '07-expired-en');
      m.token = await (await import('../testing/harness.ts')).accessToken(t.app, m.credentials);
      assert.equal((await status(payId)).status, 'Expired');
      await page.close();
    });

    it('Web QR: the banking app approves and the checkout page notices by itself', async () => {
      const { page, payId } = await open({}, '?lang=en&method=4');
      await page.getByRole('heading', { name: 'Pay with your banking app' }).waitFor();
      assert.ok(await page.locator('.qr svg').count());
      await shot(page, '08-qr-en');
      const appUrl = await page.getByRole('link', { name: 'Open the banking app page' }).getAttribute('href');
      const phone = await context.newPage();
      await phone.goto(`${appUrl}?lang=en`); // the app speaks the payment's language (KA) unless asked
      await shot(phone, '09-bank-app-en');
      await phone.getByRole('button', { name: 'Approve' }).click();
      await phone.getByText('Done.').waitFor();
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 15_000 });
      assert.equal((await status(payId)).paymentMethod, 4);
      await phone.close();
      await page.close();
    });

    it('internet bank login: a wrong password is a login error, demo/demo pays', async () => {
      const { page, payId } = await open({}, '?lang=en&method=7');
      await page.getByLabel('Username').fill('demo');
      await page.getByLabel('Password').fill('nope');
      await page.getByRole('button', { name: 'Log in and pay' }).click();
      await page.getByText('Wrong username or password.').waitFor();
      await shot(page, '10-bank-login-en');
      await page.getByLabel('Username').fill('demo');
      await page.getByLabel('Password').fill('demo');
      await page.getByRole('button', { name: 'Log in and pay' }).click();
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      assert.equal((await status(payId)).paymentMethod, 7);
      await page.close();
    });

    it('Apple Pay and Google Pay sheets approve and decline', async () => {
      for (const [method, name] of [[9, 'Apple Pay'], [14, 'Google Pay']] as const) {
        const ok = await open({}, `?lang=en&method=${method}`);
        await shot(ok.page, `11-wallet-${method}-en`);
        await ok.page.getByRole('button', { name: `Pay with ${name}` }).click();
        await ok.page.getByRole('heading', { name: 'Payment successful' }).waitFor();
        assert.equal((await status(ok.payId)).paymentMethod, method);
        await ok.page.close();
        const no = await open({}, `?lang=en&method=${method}`);
        await no.page.getByRole('button', { name: 'Cancel payment in wallet' }).click();
        await no.page.getByText('Your bank declined the payment.').waitFor();
        assert.equal((await status(no.payId)).status, 'Created');
        await no.page.close();
      }
    });

    it('installment application shows the products and pays', async () => {
      const { page, payId } = await open(
        { amount: { currency: 'GEL', total: '300.00' }, methods: [8, 5], installmentProducts: [{ name: 'Television', price: '250.00', quantity: 1 }, { name: 'Wall mount', price: 25, quantity: 2 }] },
        '?lang=en&method=8',
      );
      await page.getByRole('cell', { name: 'Television' }).waitFor();
      await page.getByText('12 months — Monthly payment: 25.00 GEL').waitFor();
      await shot(page, '12-installment-en');
      await page.getByRole('button', { name: 'Apply and pay' }).click();
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      assert.equal((await status(payId)).paymentMethod, 8);
      await page.close();
    });

    it('speaks Georgian by default, English on request', async () => {
      const { page, payId } = await open({}, '');
      await page.getByLabel('ბარათის ნომერი').waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), 'ka');
      await shot(page, '13-card-form-ka');
      await page.getByLabel('ბარათის ნომერი').fill('4111111111111111');
      await page.getByLabel('მოქმედების ვადა').fill('12/30');
      await page.getByLabel('უსაფრთხოების კოდი').fill('123');
      await page.getByLabel('ბარათის მფლობელის სახელი').fill('ნინო ბერიძე');
      await page.getByRole('button', { name: /^გადახდა / }).click();
      await page.getByRole('heading', { name: 'გადახდა წარმატებით შესრულდა' }).waitFor();
      await shot(page, '14-success-ka');
      await page.getByRole('link', { name: 'English' }).click();
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      assert.equal((await status(payId)).status, 'Succeeded');
      await page.close();
    });

    it('goes straight back to the shop with skipInfoMessage', async () => {
      const { page, payId } = await open({ skipInfoMessage: true, returnurl: `${t.gw.services.config.publicUrl}/healthz?order=1` });
      await payByCard(page, '4111111111111111');
      await page.waitForURL(/\/healthz\?order=1$/);
      assert.equal((await status(payId)).status, 'Succeeded');
      await page.close();
    });

    it('works with the keyboard alone', async () => {
      const { page, payId } = await open();
      await page.getByLabel('Card number').focus();
      await page.keyboard.type('4111111111111111');
      await page.keyboard.press('Tab');
      await page.keyboard.type('12/30');
      await page.keyboard.press('Tab');
      await page.keyboard.type('123');
      await page.keyboard.press('Tab');
      await page.keyboard.type('Keyboard User');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      assert.equal((await status(payId)).status, 'Succeeded');
      await page.close();
    });

    it('works without JavaScript', async () => {
      const noJs = await browser.newContext({ javaScriptEnabled: false });
      const res = await m.createPayment(basicPayment());
      const page = await noJs.newPage();
      await page.goto(`${res.json().links[1].uri}?lang=en`);
      await payByCard(page, '4111111111111111');
      await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
      await noJs.close();
    });

    it('raised no Content-Security-Policy violation on any page', () => {
      assert.deepEqual(cspViolations, []);
    });
  });
}
