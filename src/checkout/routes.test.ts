// The checkout page over HTTP: security properties a browser test cannot see directly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { MerchantClient, basicPayment, useGateway } from '../testing/harness.ts';
import { noCardDataIn } from '../testing/card-data.ts';

for (const backend of BACKENDS) {
  describe(`checkout over HTTP [${backend}]`, () => {
    const ctx = useGateway(backend, { KARIBCHE_CHECKOUT_ATTEMPTS_PER_MINUTE: '20' });
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
      const id = await create();
      const st = await ctx.t.app.inject(`/checkout/${id}/status`);
      assert.deepEqual(st.json(), { status: 'Created', final: false, challenge: false });
      assert.equal((await ctx.t.app.inject(`/checkout/${'0'.repeat(32)}/status`)).json().systemCode, 'checkout.404.001');
    });

    it('shows the brand colour from a stylesheet of its own, and the result of a finished payment', async () => {
      const branded = await MerchantClient.create(ctx.t, { brandColor: '#aa3300', methods: [5] });
      const id = (await branded.createPayment(basicPayment())).json().payId;
      const body = (await page(id)).body;
      assert.match(body, new RegExp(`href="/checkout/${id}/brand.css"`));
      assert.equal((await ctx.t.app.inject(`/checkout/${id}/brand.css`)).body, ':root{--brand:#aa3300}\n');
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
    // Last: it uses up this address's allowance for the minute.
    it('limits form submissions per address (429 page)', async () => {
      const id = await create();
      const first = await page(id);
      const post = () =>
        ctx.t.app.inject({ method: 'POST', url: `/checkout/${id}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(first) }, payload: `method=5&csrf=${encodeURIComponent(csrfOf(first.body))}&number=1` });
      const codes: number[] = [];
      for (let i = 0; i < 22; i++) codes.push((await post()).statusCode);
      assert.ok(codes.includes(429), `codes ${codes}`);
      const limited = await post();
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) > 0);
      assert.match(limited.body, /ძალიან ბევრი მცდელობა|Too many attempts/);
    });

  });
}
