// The checkout page over HTTP: security properties a browser test cannot see directly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { MerchantClient, TEST_ACQUIRER_MODULE, basicPayment, useGateway } from '../testing/harness.ts';
import { noCardDataIn } from '../testing/card-data.ts';
import { selectPaymentById } from '../payments/store.ts';
import { attemptPayment } from '../payments/attempt.ts';
import { qrToken } from './csrf.ts';

for (const backend of BACKENDS) {
  describe(`checkout over HTTP [${backend}]`, () => {
    const ctx = useGateway(backend, { KARIBCHE_CHECKOUT_ATTEMPTS_PER_MINUTE: '40' });
    const create = async (over: Record<string, unknown> = {}) =>
      (await ctx.m.createPayment(basicPayment(over))).json().payId as string;
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
      assert.match(
        String(res.headers['set-cookie']),
        /^kb_csrf=[0-9a-f]{32}; Path=\/checkout; HttpOnly; SameSite=Strict$/,
      );
      assert.doesNotMatch(
        res.body,
        /<script>|<script [^>]*>[^<]|\son[a-z]+=|\sstyle=/i,
        'no inline script, handlers or styles',
      );
      const external = [...res.body.matchAll(/(?:src|href)="(https?:[^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(
        external.filter((u) => !u!.startsWith('https://shop.example')),
        [],
        'no external assets',
      );
    });

    it('refuses a form without the CSRF token or from another browser session (403), changing nothing', async () => {
      const id = await create();
      const first = await page(id);
      const csrf = csrfOf(first.body);
      const form = (extra: string) =>
        `method=5&number=4111111111111111&expiry=12%2F30&securityCode=123&holder=A+B${extra}`;
      const post = (payload: string, cookie?: string) =>
        ctx.t.app.inject({
          method: 'POST',
          url: `/checkout/${id}/pay`,
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
          payload,
        });
      for (const res of [
        await post(form('')),
        await post(form(`&csrf=${csrf}`)),
        await post(form(`&csrf=${csrf}`), 'kb_csrf=00000000000000000000000000000000'),
        await post(form('&csrf=forged'), cookieOf(first)),
      ]) {
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
      assert.match(
        String(missing.headers['content-security-policy']),
        /default-src 'none'; script-src 'self'; style-src 'self'/,
      );
      assert.match(missing.body, /<h1>გადახდა ვერ მოიძებნა<\/h1>/);
      assert.match(missing.body, /href="\/checkout\/assets\/checkout.css"/);
      const id = await create();
      const st = await ctx.t.app.inject(`/checkout/${id}/status`);
      assert.deepEqual(st.json(), { status: 'Created', final: false, challenge: false, attempts: 0 });
      assert.equal(
        (await ctx.t.app.inject(`/checkout/${'0'.repeat(32)}/status`)).json().systemCode,
        'checkout.404.001',
      );
    });

    it('shows the brand colour from a stylesheet of its own, and the result of a finished payment', async () => {
      const branded = await MerchantClient.create(ctx.t, { brandColor: '#aa3300', methods: [5] });
      const id = (await branded.createPayment(basicPayment())).json().payId;
      const body = (await page(id)).body;
      assert.match(body, new RegExp(`href="/checkout/${id}/brand.css"`));
      assert.equal(
        (await ctx.t.app.inject(`/checkout/${id}/brand.css`)).body,
        ':root{--brand:#aa3300;--on-brand:#fff;--brand-text:#aa3300}\n',
      );
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
    const post = (
      id: string,
      first: { headers: Record<string, unknown>; body: string },
      fields: string,
      cookie = cookieOf(first),
    ) =>
      ctx.t.app.inject({
        method: 'POST',
        url: `/checkout/${id}/pay`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        payload: `csrf=${encodeURIComponent(csrfOf(first.body))}&${fields}`,
      });
    const row = async (id: string) => (await selectPaymentById(ctx.t.gw.services.db, id))!;

    it('treats cancelling a wallet sheet or an installment application as no attempt; the sandbox decline is one', async () => {
      const id = await create({
        amount: { currency: 'GEL', total: '300.00' },
        methods: [8, 9, 14],
        installmentProducts: [{ name: 'TV', price: '300.00', quantity: 1 }],
      });
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
      assert.deepEqual(
        [(await row(id)).attempts, (await row(id)).status, (await row(id)).result_code],
        [0, 'Created', null],
      );
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

    it('Ertguli points: cancelling is no attempt; the sandbox decline is too few points, worded as points', async () => {
      const shop = await MerchantClient.create(ctx.t, { methods: [5, 6], callbackUrlPrefixes: [] });
      const id = (await shop.createPayment(basicPayment({ methods: [6] }))).json().payId as string;
      const first = await page(id, '?lang=en');
      assert.match(first.body, /Pay with Ertguli points/);
      const cancelled = await post(id, first, 'method=6&outcome=cancel&lang=en');
      assert.equal(cancelled.headers.location, `/checkout/${id}?lang=en&method=6&notice=points-cancelled`);
      assert.deepEqual([(await row(id)).attempts, (await row(id)).status], [0, 'Created']);
      const declined = await post(id, first, 'method=6&outcome=decline&lang=en');
      assert.equal(declined.headers.location, `/checkout/${id}?lang=en&method=6`);
      assert.deepEqual([(await row(id)).attempts, (await row(id)).result_code], [1, 'decline_not_sufficient_funds']);
      const again = await page(id, '?lang=en&method=6');
      assert.match(again.body, /There are not enough points on your Ertguli balance\./);
      const paid = await post(id, first, 'method=6&outcome=approve&lang=en');
      assert.equal(paid.statusCode, 303);
      assert.deepEqual([(await row(id)).status, (await row(id)).payment_method], ['Succeeded', 6]);
    });

    it('the simulated banking app answers late on request (sandbox): the payment stays Processing', async () => {
      const id = await create({ methods: [4] });
      const qr = await page(id, '?lang=en&method=4');
      const path = /\/checkout\/[0-9a-f]+\/qr\/[^"?&]+/.exec(qr.body)![0];
      const app = await ctx.t.app.inject({ method: 'GET', url: `${path}?lang=en` });
      assert.match(app.body, /value="approve-later"[^>]*>Approve in 5 minutes \(test\)/);
      const answered = await ctx.t.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(app) },
        payload: `csrf=${encodeURIComponent(csrfOf(app.body))}&outcome=approve-later&lang=en`,
      });
      assert.equal(answered.statusCode, 200);
      assert.match(answered.body, /Your bank is confirming the payment/);
      assert.equal((await row(id)).status, 'Processing');
    });

    it('remembers the cardholder name and last four in an HttpOnly cookie of the payment, never the number or code', async () => {
      const id = await create();
      const first = await page(id);
      const res = await post(
        id,
        first,
        'method=5&number=4000000000000002&expiry=12%2F30&securityCode=987&holder=Nino+Beridze',
      );
      assert.equal(res.statusCode, 303);
      const setCookie = String(res.headers['set-cookie']);
      assert.match(
        setCookie,
        new RegExp(`^kb_form=[A-Za-z0-9_-]+; Max-Age=3600; Path=/checkout/${id}; HttpOnly; SameSite=Strict$`),
      );
      const value = /^kb_form=([^;]+)/.exec(setCookie)![1]!;
      assert.deepEqual(JSON.parse(Buffer.from(value, 'base64url').toString()), {
        holder: 'Nino Beridze',
        last4: '0002',
        scheme: 'visa',
      });
      const again = await page(id, '?lang=en');
      assert.doesNotMatch(again.body, /Nino Beridze/, 'another browser (no cookie) sees nothing');
      const mine = await ctx.t.app.inject({
        method: 'GET',
        url: `/checkout/${id}?lang=en`,
        headers: { cookie: `${cookieOf(first)}; kb_form=${value}` },
      });
      assert.match(mine.body, /id="holder"[^>]* value="Nino Beridze"/);
      assert.doesNotMatch(mine.body, /4000000000000002|4000 0000 0000 0002"|value="987"/);
      // A forged cookie is only ever text on the page.
      const forged = Buffer.from(
        JSON.stringify({ holder: '"><script>x</script>', last4: 'abcd', scheme: 'evil' }),
      ).toString('base64url');
      const safe = await ctx.t.app.inject({
        method: 'GET',
        url: `/checkout/${id}`,
        headers: { cookie: `kb_form=${forged}` },
      });
      assert.ok(!safe.body.includes('<script>x'));
      assert.match(safe.body, /value="&quot;&gt;&lt;script&gt;x&lt;\/script&gt;"/);
      // Finished: the result page clears it.
      await ctx.t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' });
      const done = await ctx.t.app.inject({
        method: 'GET',
        url: `/checkout/${id}`,
        headers: { cookie: `kb_form=${value}` },
      });
      assert.match(
        String(done.headers['set-cookie']),
        new RegExp(`(^|,)kb_form=; Max-Age=0; Path=/checkout/${id}; Expires=[^;]+; HttpOnly; SameSite=Strict$`),
      );
    });

    it('after a failed card check, shows the errors and links the other language to the pay page', async () => {
      const id = await create();
      const first = await page(id);
      const res = await post(
        id,
        first,
        'method=5&number=4111111111111112&expiry=13%2F30&securityCode=1&holder=&lang=en',
      );
      assert.equal(res.statusCode, 400);
      assert.ok(
        res.body.includes(`<a class="lang" href="/checkout/${id}?lang=ka&amp;method=5"`),
        'the switch leads to the pay page',
      );
      assert.match(
        res.body,
        /id="number"[^>]* aria-invalid="true" autofocus[ >]/,
        'the first invalid field takes the focus',
      );
      assert.match(res.body, /id="expiry"[^>]* value="13\/30"/);
      assert.doesNotMatch(res.body, /4111111111111112|value="1"/);
      assert.equal((await row(id)).attempts, 0);
    });

    it('3-D Secure: "send a new code" changes nothing, "cancel" ends the attempt with a notice', async () => {
      const id = await create();
      const first = await page(id);
      const pay = await post(
        id,
        first,
        'method=5&number=4000000000003220&expiry=12%2F30&securityCode=123&holder=A+B&lang=en',
      );
      assert.equal(pay.headers.location, `/checkout/${id}/3ds?lang=en`);
      const form = (fields: string) =>
        ctx.t.app.inject({
          method: 'POST',
          url: `/checkout/${id}/3ds`,
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(first) },
          payload: `csrf=${encodeURIComponent(csrfOf(first.body))}&${fields}`,
        });
      const resent = await form('action=resend&lang=en');
      assert.equal(resent.headers.location, `/checkout/${id}/3ds?lang=en&sent=1`);
      assert.equal((await row(id)).status, 'Processing');
      const sent = await ctx.t.app.inject({ method: 'GET', url: `/checkout/${id}/3ds?lang=en&sent=1` });
      assert.match(sent.body, /We sent a new code to your phone\./);
      const cancelled = await form('action=cancel&code=1234&lang=en');
      assert.equal(cancelled.headers.location, `/checkout/${id}?lang=en&method=5&notice=3ds-cancelled`);
      assert.deepEqual(
        [(await row(id)).status, (await row(id)).attempts, (await row(id)).result_code],
        ['Created', 1, 'decline_authentication_failed'],
      );
    });

    // Last: it uses up this address's allowance for the minute.
    // Issue 26: the card is paid through the checkout's own form on a payment with skipInfoMessage,
    // so the answer is the redirect to the shop — the one path where the stored returnurl becomes a
    // Location header.
    const payByForm = async (id: string) => {
      const first = await page(id);
      return ctx.t.app.inject({
        method: 'POST',
        url: `/checkout/${id}/pay`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(first) },
        payload: `csrf=${encodeURIComponent(csrfOf(first.body))}&method=5&number=4111111111111111&expiry=12%2F30&securityCode=123&holder=A+B`,
      });
    };
    const plainAscii = /^[\x21-\x7e]+$/;

    it('a returnurl with CR/LF or another control character is refused at create (returnurl in invalidParams)', async () => {
      for (const returnurl of [
        'https://shop.example/r\r\nSet-Cookie: a=1',
        'https://shop.example/r\nx',
        'https://shop.example/\u0085r',
        'https://shop.example/r\tx',
      ]) {
        const res = await ctx.m.createPayment(basicPayment({ returnurl, skipInfoMessage: true }));
        assert.equal(res.statusCode, 400, `${JSON.stringify(returnurl)}: ${res.body}`);
        assert.equal(res.json().systemCode, 'create-payment.400.001');
        assert.deepEqual(
          (res.json().invalidParams as { name: string }[]).map((p) => p.name),
          ['returnurl'],
          res.body,
        );
      }
    });

    it('paying by the card form with skipInfoMessage redirects to the percent-encoded return URL, never a 5xx', async () => {
      for (const [returnurl, expected] of [
        [
          'https://shop.example/შეკვეთა?x=ü#ß',
          'https://shop.example/%E1%83%A8%E1%83%94%E1%83%99%E1%83%95%E1%83%94%E1%83%97%E1%83%90?x=%C3%BC#%C3%9F',
        ],
        ['https://შოპი.example/\u202e', 'https://xn--todjd2b.example/%E2%80%AE'],
        ['https://shop.example/a b?q=1 2', 'https://shop.example/a%20b?q=1%202'],
      ]) {
        const created = await ctx.m.createPayment(basicPayment({ returnurl, skipInfoMessage: true }));
        assert.equal(created.statusCode, 200, created.body);
        const paid = await payByForm(created.json().payId);
        assert.equal(paid.statusCode, 303, `${returnurl}: ${paid.statusCode} ${paid.body}`);
        assert.equal(paid.headers.location, expected);
        assert.equal((await ctx.m.getPayment(created.json().payId)).json().status, 'Succeeded');
      }
    });

    it('a return URL stored before the rule (CR/LF, unparsable) never breaks the checkout: the result page instead of a 5xx', async () => {
      for (const stored of [
        'https://shop.example/r\r\nSet-Cookie: a=1',
        'not a url at all',
        'https://shop.example/\u0085x',
      ]) {
        const id = await create({ skipInfoMessage: true });
        await ctx.t.gw.services.db.query('UPDATE payments SET return_url = $1 WHERE pay_id = $2', [stored, id]);
        const shown = await page(id);
        assert.ok(shown.statusCode < 500, `${JSON.stringify(stored)}: page ${shown.statusCode}`);
        const paid = await payByForm(id);
        assert.equal(paid.statusCode, 303, `${JSON.stringify(stored)}: ${paid.statusCode} ${paid.body}`);
        const location = String(paid.headers.location);
        assert.match(location, plainAscii);
        // Control characters dropped or percent-encoded by the URL standard's parser; what does not
        // parse as a URL goes back to the checkout's own result page.
        const expected =
          { 'not a url at all': `/checkout/${id}?`, 'https://shop.example/\u0085x': 'https://shop.example/%C2%85x' }[
            stored
          ] ?? 'https://shop.example/rSet-Cookie:%20a=1';
        assert.equal(location, expected);
        const result = await ctx.t.app.inject({
          method: 'GET',
          url: location.startsWith('/') ? location : `/checkout/${id}`,
          headers: { cookie: cookieOf(shown) },
        });
        assert.equal(result.statusCode, 200, result.body);
        assert.equal((await ctx.m.getPayment(id)).json().status, 'Succeeded');
      }
    });

    it('limits form submissions per address (429 page)', async () => {
      const id = await create();
      const first = await page(id);
      const post = () =>
        ctx.t.app.inject({
          method: 'POST',
          url: `/checkout/${id}/pay`,
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(first) },
          payload: `method=5&csrf=${encodeURIComponent(csrfOf(first.body))}&number=1`,
        });
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

for (const backend of BACKENDS) {
  describe(`checkout in production mode: no simulated flow is reachable [${backend}]`, () => {
    const ctx = useGateway(backend, {
      KARIBCHE_MODE: 'production',
      KARIBCHE_PUBLIC_URL: 'https://pay.example',
      KARIBCHE_ACQUIRER_MODULE: TEST_ACQUIRER_MODULE,
    });
    const form = (cookie: string) => ({ 'content-type': 'application/x-www-form-urlencoded', cookie });

    it('offers only the card: the simulated flows are refused at create and left out by default', async () => {
      // The merchant enabled every method; production offers only those with a real acquirer path.
      const dflt = await ctx.m.createPayment(basicPayment());
      assert.equal(dflt.statusCode, 200, dflt.body);
      assert.deepEqual((await selectPaymentById(ctx.t.gw.services.db, dflt.json().payId))!.methods, [5]);
      for (const m of [4, 6, 7, 8, 9, 14]) {
        const res = await ctx.m.createPayment(
          basicPayment({
            methods: [m],
            amount: { currency: 'GEL', total: '300.00' },
            installmentProducts: [{ name: 'TV', price: '300.00', quantity: 1 }],
          }),
        );
        assert.equal(res.statusCode, 400, `method ${m}: ${res.body}`);
        assert.match(res.json().systemCode, /^create-payment\.400\.01[23]$/, `method ${m}`);
      }
    });

    it('answers 404 to the banking app, the bank login and the wallet forms, shows no test hint, and the acquirer is never asked', async () => {
      const id = (await ctx.m.createPayment(basicPayment())).json().payId as string;
      // A payment that offers the simulated flows anyway (written by a sandbox, or by hand).
      await ctx.t.gw.services.db.query(`UPDATE payments SET methods = '{4,5,6,7,8,9,14}' WHERE pay_id = $1`, [id]);
      const first = await ctx.t.app.inject({ method: 'GET', url: `/checkout/${id}?lang=en` });
      assert.equal(first.statusCode, 200);
      assert.doesNotMatch(
        first.body,
        /For testing|Test mode|test card|4111|1234|demo/i,
        'no test-card or test-user hint',
      );
      assert.doesNotMatch(
        first.body,
        /Apple Pay|Google Pay|Internet bank|Web QR|installment|\/qr\//i,
        'no simulated method is offered on the page',
      );
      const cookie = String(first.headers['set-cookie']).split(';')[0]!;
      const csrf = encodeURIComponent(/name="csrf" value="([^"]+)"/.exec(first.body)![1]!);
      const { calls } = (await import(TEST_ACQUIRER_MODULE)) as { calls: { op: string; reference?: string }[] };
      const before = calls.length;
      for (const payload of [
        'method=7&username=demo&password=demo',
        'method=9&outcome=approve',
        'method=14&outcome=approve',
        'method=8&outcome=approve&term=12',
        'method=6&outcome=approve',
        'method=4&outcome=approve',
      ]) {
        const res = await ctx.t.app.inject({
          method: 'POST',
          url: `/checkout/${id}/pay`,
          headers: form(cookie),
          payload: `csrf=${csrf}&${payload}`,
        });
        assert.equal(res.statusCode, 404, payload);
        assert.match(String(res.headers['content-type']), /text\/html/, payload);
      }
      const token = qrToken(ctx.t.gw.services.checkoutSecret, id);
      assert.equal((await ctx.t.app.inject({ method: 'GET', url: `/checkout/${id}/qr/${token}` })).statusCode, 404);
      const qrPost = await ctx.t.app.inject({
        method: 'POST',
        url: `/checkout/${id}/qr/${token}`,
        headers: form(cookie),
        payload: `csrf=${csrf}&outcome=approve`,
      });
      assert.equal(qrPost.statusCode, 404);
      // The domain refuses too, whoever calls it.
      await assert.rejects(
        attemptPayment(ctx.t.gw.services, id, { method: 7, answer: { outcome: 'approve' } }),
        /not available in production/,
      );
      // The sandbox's simulate does not exist, even with the operator's token.
      const simulate = await ctx.t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, {
        method: 7,
        answer: { outcome: 'approve' },
      });
      assert.equal(simulate.statusCode, 404);
      assert.match(String(simulate.headers['content-type']), /application\/problem\+json/);
      assert.equal(calls.length, before, 'the acquirer was never asked');
      const row = (await selectPaymentById(ctx.t.gw.services.db, id))!;
      assert.deepEqual([row.status, row.attempts], ['Created', 0]);
      // The card form is the one way to pay, and it reaches the real connector.
      const card = await ctx.t.app.inject({
        method: 'POST',
        url: `/checkout/${id}/pay`,
        headers: form(cookie),
        payload: `csrf=${csrf}&method=5&number=4111111111111111&expiry=12%2F30&securityCode=123&holder=A+B`,
      });
      assert.equal(card.statusCode, 303, card.body);
      assert.equal((await selectPaymentById(ctx.t.gw.services.db, id))!.status, 'Succeeded');
      assert.equal(calls.at(-1)!.op, 'authorise');
    });
  });
}
