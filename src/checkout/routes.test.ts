// The checkout page over HTTP: security properties a browser test cannot see directly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { MerchantClient, TEST_ACQUIRER_MODULE, basicPayment, useGateway } from '../testing/harness.ts';
import { noCardDataIn } from '../testing/card-data.ts';
import { selectPaymentById } from '../payments/store.ts';

for (const backend of BACKENDS) {
  describe(`checkout over HTTP [${backend}]`, () => {
    const ctx = useGateway(backend, { KARIBCHE_CHECKOUT_ATTEMPTS_PER_MINUTE: '40' });
    const create = async (over: Record<string, unknown> = {}) => (await ctx.m.createPayment(basicPayment(over))).json().payId as string;
    const page = (payId: string, query = '') => ctx.t.app.inject({ method: 'GET', url: `/checkout/${payId}${query}` });
    const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)![1]!;
    const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0]!;

    it('serves a strict page: CSP without inline script, no framing, no caching, HttpOnly SameSite cookie', async () => {
      const id = await create({ returnurl: 'https://shop.example/return' });
      const res = await page(id);
      assert.equal(res.statusCode, 200);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /style-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /form-action 'self' https:\/\/shop\.example/);
      assert.equal(res.headers['x-frame-options'], 'DENY');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.match(String(res.headers['set-cookie']), /^kb_csrf=[0-9a-f]{32}; Path=\/checkout; HttpOnly; SameSite=Strict$/);
      assert.doesNotMatch(res.body, /<script>|<script [^>]*>[^<]|\son[a-z]+=|\sstyle=/i, 'no inline script, handlers or styles');
      const external = [...res.body.matchAll(/(?:src|href)="(https?:[^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(external.filter((u) => !u!.startsWith('https://shop.example')), [], 'no external assets');
    });

    it('refuses a form without the CSRF token or from another browser session (403), changing nothing', async () => {
      const id = await create();
      const first = await page(id);
      const csrf = csrfOf(first.body);
      const form = (extra: string) => `method=5&number=4111111111111111&expiry=12%2F30&securityCode=123&holder=A+B${extra}`;
      const post = (payload: string, cookie?: string) =>
        ctx.t.app.inject({ method: 'POST', url: `/checkout/${id}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) }, payload });
      for (const res of [await post(form('')), await post(form(`&csrf=${csrf}`)), await post(form(`&csrf=${csrf}`), 'kb_csrf=00000000000000000000000000000000'), await post(form('&csrf=forged'), cookieOf(first))]) {
        assert.equal(res.statusCode, 403);
        assert.match(res.body, /The form has expired|ფორმას ვადა გაუვიდა/);
      }
      assert.equal((await ctx.m.getPayment(id)).json().status, 'Created');
      const ok = await post(form(`&csrf=${encodeURIComponent(csrf)}`), cookieOf(first));
      assert.equal(ok.statusCode, 303);
      assert.equal((await ctx.m.getPayment(id)).json().status, 'Succeeded');
    });

    it('escapes what merchants and shops control', async () => {
      const evil = await MerchantClient.create(ctx.t, { name: '<script>alert(1)</script>Shop', methods: [5, 7] });
      const res = await evil.createPayment(basicPayment({ description: '"><img src=x onerror=1>' }));
      const body = (await page(res.json().payId)).body;
      assert.ok(!body.includes('<script>alert(1)'));
      assert.ok(body.includes('&lt;script&gt;alert(1)&lt;/script&gt;Shop'));
      assert.ok(!body.includes('<img src=x'));
    });

    it('answers unknown payments with a 404 page, and the status endpoint with JSON', async () => {
      const missing = await page('0'.repeat(32));
      assert.equal(missing.statusCode, 404);
      assert.match(String(missing.headers['content-type']), /text\/html/);
      assert.equal((await page('nonsense')).statusCode, 404);
      // Styled: the checkout's own policy lets its stylesheet load (the API's would not).
      assert.match(String(missing.headers['content-security-policy']), /default-src 'none'; script-src 'self'; style-src 'self'/);
      assert.match(missing.body, /<h1>გადახდა ვერ მოიძებნა<\/h1>/);
      assert.match(missing.body, /href="\/checkout\/assets\/checkout.css"/);
      const id = await create();
      const st = await ctx.t.app.inject(`/checkout/${id}/status`);
      assert.deepEqual(st.json(), { status: 'Created', final: false, challenge: false, attempts: 0 });
      assert.equal((await ctx.t.app.inject(`/checkout/${'0'.repeat(32)}/status`)).json().systemCode, 'checkout.404.001');
    });

    it('shows the brand colour from a stylesheet of its own, and the result of a finished payment', async () => {
      const branded = await MerchantClient.create(ctx.t, { brandColor: '#aa3300', methods: [5] });
      const id = (await branded.createPayment(basicPayment())).json().payId;
      const body = (await page(id)).body;
      assert.match(body, new RegExp(`href="/checkout/${id}/brand.css"`));
      assert.equal((await ctx.t.app.inject(`/checkout/${id}/brand.css`)).body, ':root{--brand:#aa3300;--on-brand:#fff;--brand-text:#aa3300}\n');
      await ctx.t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' });
      const done = await page(id, '?lang=en');
      assert.match(done.body, /Payment successful/);
      assert.match(done.body, /Return to shop/);
    });

    it('never stores a card number typed into the page', async () => {
      const id = await create();
      const first = await page(id);
      await ctx.t.app.inject({
        method: 'POST',
        url: `/checkout/${id}/pay`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(first) },
        payload: `method=5&csrf=${encodeURIComponent(csrfOf(first.body))}&number=5555+5555+5555+4444&expiry=12%2F30&securityCode=987&holder=A+B`,
      });
      assert.equal((await ctx.m.getPayment(id)).json().paymentCardNumber, '555555******4444');
      await noCardDataIn(ctx.t);
    });
    const post = (id: string, first: { headers: Record<string, unknown>; body: string }, fields: string, cookie = cookieOf(first)) =>
      ctx.t.app.inject({ method: 'POST', url: `/checkout/${id}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, payload: `csrf=${encodeURIComponent(csrfOf(first.body))}&${fields}` });
    const row = async (id: string) => (await selectPaymentById(ctx.t.gw.services.db, id))!;

    it('treats cancelling a wallet sheet or an installment application as no attempt; the sandbox decline is one', async () => {
      const id = await create({ amount: { currency: 'GEL', total: '300.00' }, methods: [8, 9, 14], installmentProducts: [{ name: 'TV', price: '300.00', quantity: 1 }] });
      const first = await page(id);
      for (const [fields, location] of [
        ['method=9&outcome=cancel&lang=en', `/checkout/${id}?lang=en&method=9&notice=wallet-cancelled`],
        ['method=14&outcome=anything', `/checkout/${id}?method=14&notice=wallet-cancelled`],
        ['method=8&outcome=cancel&term=12', `/checkout/${id}?method=8&term=12&notice=installment-cancelled`],
        ['method=8&term=7', `/checkout/${id}?method=8&notice=installment-cancelled`],
      ]) {
        const res = await post(id, first, fields!);
        assert.equal(res.statusCode, 303);
        assert.equal(res.headers.location, location);
      }
      assert.deepEqual([(await row(id)).attempts, (await row(id)).status, (await row(id)).result_code], [0, 'Created', null]);
      const notice = await page(id, '?lang=en&method=9&notice=wallet-cancelled');
      assert.match(notice.body, /role="status"[^>]*>.*You cancelled the payment in Apple Pay\./s);
      assert.doesNotMatch(notice.body, /declined/i);
      const declined = await post(id, first, 'method=8&outcome=decline&term=24');
      assert.equal(declined.headers.location, `/checkout/${id}?method=8&term=24`);
      assert.deepEqual([(await row(id)).attempts, (await row(id)).result_code], [1, 'decline_general']);
      const again = await page(id, '?method=8&term=24');
      assert.match(again.body, /value="24" checked/);
      assert.match(again.body, /role="alert"/);
    });

    it('remembers the cardholder name and last four in an HttpOnly cookie of the payment, never the number or code', async () => {
      const id = await create();
      const first = await page(id);
      const res = await post(id, first, 'method=5&number=4000000000000002&expiry=12%2F30&securityCode=987&holder=Nino+Beridze');
      assert.equal(res.statusCode, 303);
      const setCookie = String(res.headers['set-cookie']);
      assert.match(setCookie, new RegExp(`^kb_form=[A-Za-z0-9_-]+; Max-Age=3600; Path=/checkout/${id}; HttpOnly; SameSite=Strict$`));
      const value = /^kb_form=([^;]+)/.exec(setCookie)![1]!;
      assert.deepEqual(JSON.parse(Buffer.from(value, 'base64url').toString()), { holder: 'Nino Beridze', last4: '0002', scheme: 'visa' });
      const again = await page(id, '?lang=en');
      assert.doesNotMatch(again.body, /Nino Beridze/, 'another browser (no cookie) sees nothing');
      const mine = await ctx.t.app.inject({ method: 'GET', url: `/checkout/${id}?lang=en`, headers: { cookie: `${cookieOf(first)}; kb_form=${value}` } });
      assert.match(mine.body, /id="holder"[^>]* value="Nino Beridze"/);
      assert.doesNotMatch(mine.body, /4000000000000002|4000 0000 0000 0002"|value="987"/);
      // A forged cookie is only ever text on the page.
      const forged = Buffer.from(JSON.stringify({ holder: '"><script>x</script>', last4: 'abcd', scheme: 'evil' })).toString('base64url');
      const safe = await ctx.t.app.inject({ method: 'GET', url: `/checkout/${id}`, headers: { cookie: `kb_form=${forged}` } });
      assert.ok(!safe.body.includes('<script>x'));
      assert.match(safe.body, /value="&quot;&gt;&lt;script&gt;x&lt;\/script&gt;"/);
      // Finished: the result page clears it.
      await ctx.t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' });
      const done = await ctx.t.app.inject({ method: 'GET', url: `/checkout/${id}`, headers: { cookie: `kb_form=${value}` } });
      assert.match(String(done.headers['set-cookie']), new RegExp(`(^|,)kb_form=; Max-Age=0; Path=/checkout/${id}; Expires=[^;]+; HttpOnly; SameSite=Strict$`));
    });

    it('after a failed card check, shows the errors and links the other language to the pay page', async () => {
      const id = await create();
      const first = await page(id);
      const res = await post(id, first, 'method=5&number=4111111111111112&expiry=13%2F30&securityCode=1&holder=&lang=en');
      assert.equal(res.statusCode, 400);
      assert.ok(res.body.includes(`<a class="lang" href="/checkout/${id}?lang=ka&amp;method=5"`), 'the switch leads to the pay page');
      assert.match(res.body, /id="number"[^>]* aria-invalid="true" autofocus[ >]/, 'the first invalid field takes the focus');
      assert.match(res.body, /id="expiry"[^>]* value="13\/30"/);
      assert.doesNotMatch(res.body, /4111111111111112|value="1"/);
      assert.equal((await row(id)).attempts, 0);
    });

    it('3-D Secure: "send a new code" changes nothing, "cancel" ends the attempt with a notice', async () => {
      const id = await create();
      const first = await page(id);
      const pay = await post(id, first, 'method=5&number=4000000000003220&expiry=12%2F30&securityCode=123&holder=A+B&lang=en');
      assert.equal(pay.headers.location, `/checkout/${id}/3ds?lang=en`);
      const form = (fields: string) =>
        ctx.t.app.inject({ method: 'POST', url: `/checkout/${id}/3ds`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(first) }, payload: `csrf=${encodeURIComponent(csrfOf(first.body))}&${fields}` });
      const resent = await form('action=resend&lang=en');
      assert.equal(resent.headers.location, `/checkout/${id}/3ds?lang=en&sent=1`);
      assert.equal((await row(id)).status, 'Processing');
      const sent = await ctx.t.app.inject({ method: 'GET', url: `/checkout/${id}/3ds?lang=en&sent=1` });
      assert.match(sent.body, /We sent a new code to your phone\./);
      const cancelled = await form('action=cancel&code=1234&lang=en');
      assert.equal(cancelled.headers.location, `/checkout/${id}?lang=en&method=5&notice=3ds-cancelled`);
      assert.deepEqual([(await row(id)).status, (await row(id)).attempts, (await row(id)).result_code], ['Created', 1, 'decline_authentication_failed']);
    });

    // Last: it uses up this address's allowance for the minute.
    it('limits form submissions per address (429 page)', async () => {
      const id = await create();
      const first = await page(id);
      const post = () =>
        ctx.t.app.inject({ method: 'POST', url: `/checkout/${id}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(first) }, payload: `method=5&csrf=${encodeURIComponent(csrfOf(first.body))}&number=1` });
      const codes: number[] = [];
      for (let i = 0; i < 42; i++) codes.push((await post()).statusCode);
      assert.ok(codes.includes(429), `codes ${codes}`);
      const limited = await post();
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) > 0);
      assert.match(limited.body, /ძალიან ბევრი მცდელობა|Too many attempts/);
    });

  });
}

describe('checkout in production mode', () => {
  const ctx = useGateway(BACKENDS[0]!, { KARIBCHE_MODE: 'production', KARIBCHE_PUBLIC_URL: 'https://pay.example', KARIBCHE_ACQUIRER_MODULE: TEST_ACQUIRER_MODULE });

  it('offers no test decline: a posted "decline" from a wallet or installment form is a cancellation', async () => {
    const id = (await ctx.m.createPayment(basicPayment({ amount: { currency: 'GEL', total: '300.00' }, methods: [8, 9], installmentProducts: [{ name: 'TV', price: '300.00', quantity: 1 }] }))).json().payId as string;
    const first = await ctx.t.app.inject({ method: 'GET', url: `/checkout/${id}?method=9&lang=en` });
    assert.doesNotMatch(first.body, /Bank declines|For testing|Test mode/);
    const cookie = String(first.headers['set-cookie']).split(';')[0]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(first.body)![1]!;
    for (const method of [9, 8]) {
      const res = await ctx.t.app.inject({ method: 'POST', url: `/checkout/${id}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, payload: `csrf=${encodeURIComponent(csrf)}&method=${method}&outcome=decline` });
      assert.equal(res.statusCode, 303);
      assert.match(String(res.headers.location), /notice=(wallet|installment)-cancelled$/);
    }
    const row = (await selectPaymentById(ctx.t.gw.services.db, id))!;
    assert.deepEqual([row.status, row.attempts], ['Created', 0]);
  });
});
