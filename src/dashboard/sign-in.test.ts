// Dashboard sign-in, sessions and users over HTTP: scrypt passwords, the session cookie, CSRF on
// every form, throttling and lockout per account and per address, idle and absolute expiry on real
// time, sign-out, the operator's user creation (admin API and CLI), and that dashboard traffic
// stays out of the merchant API's request log.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashSecret } from '../merchants/credentials.ts';
import { verifyPassword } from '../merchants/passwords.ts';
import { runCli } from '../testing/cli-process.ts';
import { BACKENDS } from '../testing/databases.ts';
import { ADMIN_TOKEN, TEST_ACQUIRER_MODULE, accessToken, createMerchant, useGateway } from '../testing/harness.ts';
import { Receiver } from '../testing/receiver.ts';
import { DashboardBrowser, createDashboardUser, fieldOf, mainText } from '../testing/dashboard.ts';
import { freePort } from '../testing/browser.ts';

const LIMIT = 2;
const PER_MINUTE = 40;
let addresses = 0;
/** A fresh source address per test: the throttles count per address. */
const address = () => `10.0.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

for (const backend of BACKENDS) {
  describe(`dashboard sign-in and sessions [${backend}]`, () => {
    const ctx = useGateway(backend, {
      KARIBCHE_AUTH_FAILURE_LIMIT: String(LIMIT),
      KARIBCHE_DASHBOARD_SIGN_INS_PER_MINUTE: String(PER_MINUTE),
    });
    const db = () => ctx.t.gw.services.db;
    const user = () => createDashboardUser(ctx.t, ctx.m.credentials.clientId);

    it('signs in with email and password: a new session in an HttpOnly SameSite=Strict cookie, stored only as its SHA-256', async () => {
      const login = await user();
      const b = new DashboardBrowser(ctx.t.app, address());
      const form = await b.get('/dashboard/sign-in?lang=en');
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /<label for="email">Email<\/label>/);
      assert.match(form.body, /<label for="password">Password<\/label>/);
      assert.match(form.body, /<button type="submit" class="primary">Sign in<\/button>/);
      const res = await b.post('/dashboard/sign-in', {
        csrf: fieldOf(form.body, 'csrf'),
        email: login.email.toUpperCase(),
        password: login.password,
      });
      assert.equal(res.statusCode, 303, mainText(res.body));
      assert.equal(res.headers.location, '/dashboard/payments');
      const cookie = ([] as string[])
        .concat(res.headers['set-cookie'] as string[])
        .find((c) => c.startsWith('kb_dash='))!;
      assert.match(
        cookie,
        /^kb_dash=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict$/,
        'no Secure flag on plain-http sandbox; Secure in production (routes.ts)',
      );
      const id = b.cookies.get('kb_dash')!;
      const { rows } = await db().query<{ id_hash: string }>('SELECT id_hash FROM dashboard_sessions');
      assert.ok(
        rows.some((r) => r.id_hash === hashSecret(id)),
        'the digest is stored',
      );
      assert.ok(!rows.some((r) => r.id_hash === id), 'never the id itself');
      const page = await b.get('/dashboard/payments');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, new RegExp(login.email));

      // Another sign-in is another session: a planted session id is worthless after signing in.
      const again = await DashboardBrowser.signedIn(ctx.t, login, address());
      assert.notEqual(again.cookies.get('kb_dash'), id);
    });

    it('stores the password as scrypt (N=2^15, r=8, p=1), never as given', async () => {
      const login = await user();
      const { rows } = await db().query<{ password_hash: string }>(
        'SELECT password_hash FROM dashboard_users WHERE email = $1',
        [login.email],
      );
      assert.match(rows[0]!.password_hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      assert.ok(!rows[0]!.password_hash.includes(login.password));
      assert.equal(await verifyPassword(login.password, rows[0]!.password_hash), true);
      assert.equal(await verifyPassword(`${login.password}x`, rows[0]!.password_hash), false);
    });

    it('answers a wrong password and an unknown email alike: 401, the same message, nothing set', async () => {
      const login = await user();
      const b = new DashboardBrowser(ctx.t.app, address());
      for (const [email, password] of [
        [login.email, 'wrong-password-123'],
        ['nobody@shop.example', login.password],
      ] as const) {
        const form = await b.get('/dashboard/sign-in?lang=en');
        const res = await b.post('/dashboard/sign-in', { csrf: fieldOf(form.body, 'csrf'), email, password });
        assert.equal(res.statusCode, 401);
        assert.match(mainText(res.body), /Wrong email or password\./);
        assert.equal(b.cookies.has('kb_dash'), false);
        assert.equal(
          fieldOf(res.body, 'email') ?? /id="email"[^>]*value="([^"]*)"/.exec(res.body)?.[1],
          email,
          'the email is kept in the form',
        );
      }
      const ka = await b.get('/dashboard/sign-in?lang=ka');
      const res = await b.post('/dashboard/sign-in', {
        csrf: fieldOf(ka.body, 'csrf'),
        email: login.email,
        password: 'wrong-password-123',
      });
      assert.match(mainText(res.body), /ელფოსტა ან პაროლი არასწორია/);
    });

    it('locks an account after the failure limit, from any address, even for the right password; other accounts are not affected', async () => {
      const login = await user();
      const other = await user();
      const attacker = new DashboardBrowser(ctx.t.app, address());
      for (let i = 0; i < LIMIT; i++)
        assert.equal((await attacker.signIn({ ...login, password: `guess-number-${i}` })).statusCode, 401);
      const locked = await attacker.signIn(login);
      assert.equal(locked.statusCode, 429);
      assert.match(mainText(locked.body), /Too many failed sign-in attempts\. Try again in \d+ seconds\./);
      assert.ok(Number(locked.headers['retry-after']) > 0);
      // Per account: the owner at another address is locked out too…
      assert.equal((await new DashboardBrowser(ctx.t.app, address()).signIn(login)).statusCode, 429);
      // …while another account at the attacker's address still signs in.
      assert.equal((await attacker.signIn(other)).statusCode, 303);
    });

    it('locks an address after ten times the limit of failures across accounts; other addresses are not affected', async () => {
      const login = await user();
      const sprayer = new DashboardBrowser(ctx.t.app, address());
      for (let i = 0; i < LIMIT * 10; i++) {
        const res = await sprayer.signIn({ email: `spray${i}@shop.example`, password: 'password-1234' });
        assert.equal(res.statusCode, 401, `attempt ${i + 1}`);
      }
      assert.equal((await sprayer.signIn(login)).statusCode, 429, 'the right password from that address waits too');
      assert.equal((await new DashboardBrowser(ctx.t.app, address()).signIn(login)).statusCode, 303);
    });

    it('never checks more passwords than the limit, however many guesses arrive at once', async () => {
      const login = await user();
      const results = await Promise.all(
        Array.from({ length: LIMIT * 3 }, (_, i) =>
          new DashboardBrowser(ctx.t.app, address()).signIn({ ...login, password: `parallel-guess-${i}` }),
        ),
      );
      const statuses = results.map((r) => r.statusCode).sort();
      assert.equal(statuses.filter((s) => s === 401).length, LIMIT, statuses.join(','));
      assert.ok(
        statuses.every((s) => s === 401 || s === 429),
        statuses.join(','),
      );
    });

    it('caps sign-in requests per address per minute whatever their outcome (flood guard)', async () => {
      const b = new DashboardBrowser(ctx.t.app, address());
      await b.get('/dashboard/sign-in?lang=en');
      let last;
      for (let i = 0; i <= PER_MINUTE; i++)
        last = await b.post('/dashboard/sign-in', { csrf: 'x', email: 'a@b.example', password: 'p' });
      assert.equal(last!.statusCode, 429);
      assert.match(String(last!.headers['content-type']), /^text\/html/);
      assert.match(mainText(last!.body), /Too many requests/);
    });

    it('refuses a sign-in without the form token or with another browser’s (403), and a signed-in form without its session’s token', async () => {
      const login = await user();
      const mine = new DashboardBrowser(ctx.t.app, address());
      const theirs = new DashboardBrowser(ctx.t.app, address());
      const theirToken = fieldOf((await theirs.get('/dashboard/sign-in?lang=en')).body, 'csrf');
      await mine.get('/dashboard/sign-in?lang=en');
      for (const csrf of [undefined, '', theirToken, 'forged']) {
        const res = await mine.post('/dashboard/sign-in', { csrf, email: login.email, password: login.password });
        assert.equal(res.statusCode, 403);
        assert.match(mainText(res.body), /This form has expired/);
        assert.equal(mine.cookies.has('kb_dash'), false);
      }
      const b = await DashboardBrowser.signedIn(ctx.t, login, address());
      const other = await DashboardBrowser.signedIn(ctx.t, login, address());
      const keys = async () =>
        (
          await db().query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE client_id = $1', [
            ctx.m.credentials.clientId,
          ])
        ).rows[0]!.n;
      const before = await keys();
      for (const csrf of [undefined, 'forged', await other.csrf()]) {
        const res = await b.post('/dashboard/developers/api-keys', { csrf });
        assert.equal(res.statusCode, 403);
        assert.match(res.headers['content-type'] as string, /^text\/html/);
        assert.match(mainText(res.body), /This form has expired/);
      }
      assert.equal(await keys(), before, 'nothing was created');
      assert.equal((await b.submit('/dashboard/developers/api-keys')).statusCode, 200, 'with the token it works');
    });

    it('ends a session idle too long, and one past its absolute lifetime, on real time; the sandbox clock does not end one', async () => {
      const login = await user();
      const idle = await DashboardBrowser.signedIn(ctx.t, login, address());
      const old = await DashboardBrowser.signedIn(ctx.t, login, address());
      const travel = await DashboardBrowser.signedIn(ctx.t, login, address());
      const hash = (b: DashboardBrowser) => hashSecret(b.cookies.get('kb_dash')!);
      const config = ctx.t.gw.services.config;
      await db().query(
        `UPDATE dashboard_sessions SET last_seen_at = now() - make_interval(mins => $2) WHERE id_hash = $1`,
        [hash(idle), config.dashboardIdleMinutes + 1],
      );
      await db().query(`UPDATE dashboard_sessions SET expires_at = now() - interval '1 second' WHERE id_hash = $1`, [
        hash(old),
      ]);
      await ctx.t.admin('POST', '/sandbox/v1/clock', { advanceSeconds: 30 * 86_400 });
      for (const b of [idle, old]) {
        const h = hash(b);
        const res = await b.get('/dashboard/developers');
        assert.equal(res.statusCode, 303);
        assert.equal(res.headers.location, '/dashboard/sign-in?next=%2Fdashboard%2Fdevelopers&notice=ended');
        assert.equal(b.cookies.has('kb_dash'), false, 'the cookie is cleared');
        assert.equal(
          (await db().query('SELECT 1 FROM dashboard_sessions WHERE id_hash = $1', [h])).rowCount,
          0,
          'the session is deleted',
        );
        const signIn = await b.get(res.headers.location as string);
        assert.match(mainText(signIn.body), /Your session has ended\. Sign in again\./);
      }
      assert.equal(
        (await travel.get('/dashboard/developers')).statusCode,
        200,
        'thirty days of sandbox time travel later',
      );
      // The idle limit slides: a session in use stays.
      const { rows } = await db().query<{ last_seen_at: Date }>(
        'SELECT last_seen_at FROM dashboard_sessions WHERE id_hash = $1',
        [hash(travel)],
      );
      assert.ok(Math.abs(rows[0]!.last_seen_at.getTime() - Date.now()) < 10 * 60_000);
    });

    it('goes back to the page asked for after signing in; refuses to send anyone off the dashboard', async () => {
      const login = await user();
      const b = new DashboardBrowser(ctx.t.app, address());
      const gate = await b.get('/dashboard/settings');
      assert.equal(gate.statusCode, 303);
      const form = await b.get(gate.headers.location as string);
      const res = await b.post('/dashboard/sign-in', {
        csrf: fieldOf(form.body, 'csrf'),
        next: fieldOf(form.body, 'next'),
        email: login.email,
        password: login.password,
      });
      assert.equal(res.headers.location, '/dashboard/settings');
      for (const next of ['//evil.example/x', 'https://evil.example/', '/dashboard/\\evil', '/admin/v1/merchants']) {
        const c = new DashboardBrowser(ctx.t.app, address());
        const f = await c.get('/dashboard/sign-in');
        const r = await c.post('/dashboard/sign-in', {
          csrf: fieldOf(f.body, 'csrf'),
          next,
          email: login.email,
          password: login.password,
        });
        assert.equal(r.headers.location, '/dashboard/payments', next);
      }
      // Issue 26: `next` becomes a Location header; text a header cannot carry (CR/LF is refused by
      // the HTTP parser before us, but Georgian or other non-Latin-1 text is not) is no address to
      // go back to, never a 500.
      for (const next of ['/dashboard/payments/შეკვეთა', '/dashboard/payments?q=\u20ac', '/dashboard/settings\u0085']) {
        const c = new DashboardBrowser(ctx.t.app, address());
        const f = await c.get(`/dashboard/sign-in?next=${encodeURIComponent(next)}`);
        assert.equal(f.statusCode, 200, f.body);
        const r = await c.post('/dashboard/sign-in', {
          csrf: fieldOf(f.body, 'csrf'),
          next,
          email: login.email,
          password: login.password,
        });
        assert.equal(r.statusCode, 303, `${JSON.stringify(next)}: ${r.statusCode} ${r.body}`);
        assert.equal(r.headers.location, '/dashboard/payments', next);
        const again = await c.get(`/dashboard/sign-in?next=${encodeURIComponent(next)}`);
        assert.equal(again.statusCode, 303, `${JSON.stringify(next)}: ${again.statusCode} ${again.body}`);
        assert.equal(again.headers.location, '/dashboard/payments', next);
      }
    });

    it('signs out: the session is deleted and its cookie no longer opens a page', async () => {
      const login = await user();
      const b = await DashboardBrowser.signedIn(ctx.t, login, address());
      const stolen = b.cookies.get('kb_dash')!;
      const res = await b.submit('/dashboard/sign-out');
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/dashboard/sign-in?notice=signed-out');
      assert.equal(b.cookies.has('kb_dash'), false);
      const replay = await ctx.t.app.inject({
        method: 'GET',
        url: '/dashboard/payments',
        headers: { cookie: `kb_dash=${stolen}` },
      });
      assert.equal(replay.statusCode, 303);
      assert.match(
        mainText((await b.get('/dashboard/sign-in?notice=signed-out&lang=en')).body),
        /You have signed out\./,
      );
    });

    it('sends every page to the sign-in page without a session, and answers unknown dashboard paths with its own page', async () => {
      for (const url of [
        '/dashboard/payments',
        '/dashboard/payments/0123456789abcdef0123456789abcdef',
        '/dashboard/callbacks',
        '/dashboard/developers',
        '/dashboard/developers/requests',
        '/dashboard/settings',
        '/dashboard/payments/export.csv',
      ]) {
        const res = await ctx.t.app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 303, url);
        assert.match(String(res.headers.location), /^\/dashboard\/sign-in\?next=/);
      }
      const post = await ctx.t.app.inject({
        method: 'POST',
        url: '/dashboard/developers/api-keys',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'csrf=x',
      });
      assert.equal(post.statusCode, 303);
      assert.equal(post.headers.location, '/dashboard/sign-in');
      assert.equal(
        (await ctx.t.app.inject({ method: 'GET', url: '/dashboard' })).headers.location,
        '/dashboard/payments',
      );
      const missing = await ctx.t.app.inject({ method: 'GET', url: '/dashboard/no/such/page?lang=en' });
      assert.equal(missing.statusCode, 404);
      assert.match(String(missing.headers['content-type']), /^text\/html/);
      assert.match(String(missing.headers['content-security-policy']), /default-src 'none'/);
      assert.match(mainText(missing.body), /Not found/);
    });

    it('remembers the language chosen with ?lang= in a cookie', async () => {
      const b = new DashboardBrowser(ctx.t.app, address());
      assert.match((await b.get('/dashboard/sign-in')).body, /<html lang="ka">/);
      assert.match((await b.get('/dashboard/sign-in?lang=en')).body, /<html lang="en">/);
      assert.match(String(b.cookies.get('kb_dash_lang')), /^en$/);
      assert.match((await b.get('/dashboard/sign-in')).body, /<html lang="en">/);
      assert.match((await b.get('/dashboard/sign-in?lang=ka')).body, /<html lang="ka">/);
      assert.match((await b.get('/dashboard/sign-in')).body, /<html lang="ka">/);
    });

    it('refuses the users of a suspended merchant: no sign-in, and open sessions stop', async () => {
      const { credentials } = await createMerchant(ctx.t);
      const login = await createDashboardUser(ctx.t, credentials.clientId);
      const open = await DashboardBrowser.signedIn(ctx.t, login, address());
      assert.equal(
        (await ctx.t.admin('PATCH', `/admin/v1/merchants/${credentials.clientId}`, { status: 'suspended' })).statusCode,
        200,
      );
      const page = await open.get('/dashboard/payments');
      assert.equal(page.statusCode, 403);
      assert.match(mainText(page.body), /suspended/);
      const res = await new DashboardBrowser(ctx.t.app, address()).signIn(login);
      assert.equal(res.statusCode, 403);
      assert.match(mainText(res.body), /This merchant account is suspended/);
    });

    it('keeps dashboard traffic out of the merchant API’s request log', async () => {
      const login = await user();
      const b = await DashboardBrowser.signedIn(ctx.t, login, address());
      for (const url of ['/dashboard/payments', '/dashboard/developers', '/dashboard/developers/requests'])
        assert.equal((await b.get(url)).statusCode, 200);
      await b.submit('/dashboard/developers/api-keys');
      ctx.m.token = await accessToken(ctx.t.app, ctx.m.credentials); // an earlier test moved the sandbox clock past the old one
      assert.equal((await ctx.m.get('/v1/gateway/requests?status=2xx')).statusCode, 200); // an API call, logged
      const logged = async () => {
        await ctx.t.app.requestLog.flush();
        return (
          await db().query<{ path: string }>('SELECT path FROM merchant_requests WHERE client_id = $1', [
            ctx.m.credentials.clientId,
          ])
        ).rows;
      };
      let rows = await logged();
      // The log is written after the answer (onResponse), so wait for the API call's entry.
      for (
        const end = Date.now() + 10_000;
        !rows.some((r) => r.path === '/v1/gateway/requests?status=2xx') && Date.now() < end;
        rows = await logged()
      )
        await new Promise((r) => setTimeout(r, 20));
      assert.ok(
        rows.some((r) => r.path === '/v1/gateway/requests?status=2xx'),
        'the API call is logged',
      );
      assert.deepEqual(
        rows.filter((r) => r.path.startsWith('/dashboard')),
        [],
      );
    });
  });

  describe(`dashboard users: the operator creates them [${backend}]`, () => {
    const ctx = useGateway(backend);

    it('creates a user with a generated password shown once, or the one given; refuses a taken email, a bad email or password, an unknown merchant', async () => {
      const clientId = ctx.m.credentials.clientId;
      const made = await ctx.t.admin('POST', `/admin/v1/merchants/${clientId}/users`, {
        email: ' Owner@Shop.Example ',
      });
      assert.equal(made.statusCode, 201, made.body);
      assert.equal(made.json().user.email, 'owner@shop.example');
      assert.equal(made.json().user.clientId, clientId);
      assert.match(made.json().password, /^[A-Za-z0-9_-]{20}$/);
      await DashboardBrowser.signedIn(ctx.t, { email: 'owner@shop.example', password: made.json().password });

      const chosen = await ctx.t.admin('POST', `/admin/v1/merchants/${clientId}/users`, {
        email: 'dev@shop.example',
        password: 'a chosen passphrase',
      });
      assert.equal(chosen.statusCode, 201);
      assert.equal(chosen.json().password, null);
      await DashboardBrowser.signedIn(ctx.t, { email: 'dev@shop.example', password: 'a chosen passphrase' });

      const taken = await ctx.t.admin('POST', `/admin/v1/merchants/${clientId}/users`, { email: 'OWNER@shop.example' });
      assert.equal(taken.statusCode, 409);
      assert.equal(taken.json().systemCode, 'admin.409.005');
      const bad = await ctx.t.admin('POST', `/admin/v1/merchants/${clientId}/users`, {
        email: 'not an email',
        password: 'short',
      });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(
        bad.json().invalidParams.map((p: { name: string }) => p.name),
        ['email', 'password'],
      );
      assert.equal(
        (await ctx.t.admin('POST', '/admin/v1/merchants/kcnosuchmerchant/users', { email: 'x@shop.example' }))
          .statusCode,
        404,
      );
      assert.equal(
        (
          await ctx.t.app.inject({
            method: 'POST',
            url: `/admin/v1/merchants/${clientId}/users`,
            payload: { email: 'y@shop.example' },
          })
        ).statusCode,
        401,
      );
    });

    it('`karibche user create` prints the generated password once', { timeout: 60_000 }, async () => {
      const port = await freePort();
      await ctx.t.app.listen({ port, host: '127.0.0.1' });
      // The CLI as the runner compiled it (src/testing/cli-process.ts); a failed command rejects.
      const run = async (args: string[]) => {
        const r = await runCli(args, { KARIBCHE_URL: `http://127.0.0.1:${port}`, KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN });
        if (r.code !== 0) throw new Error(`${r.stderr}${r.stdout}`);
        return r;
      };
      const { stdout } = await run([
        'user',
        'create',
        '--merchant',
        ctx.m.credentials.clientId,
        '--email',
        'cli@shop.example',
      ]);
      const password = /password \(shown only now\): (\S+)/.exec(stdout)?.[1];
      assert.ok(password, stdout);
      await DashboardBrowser.signedIn(ctx.t, { email: 'cli@shop.example', password });
      const given = await run([
        'user',
        'create',
        '--merchant',
        ctx.m.credentials.clientId,
        '--email',
        'cli2@shop.example',
        '--password',
        'another passphrase',
      ]);
      assert.doesNotMatch(given.stdout, /password/);
      await assert.rejects(
        run(['user', 'create', '--merchant', ctx.m.credentials.clientId, '--email', 'cli@shop.example']),
        /409 User already exists \(admin\.409\.005\)/,
      );
    });
  });
}

describe('the dashboard in production mode', () => {
  const ctx = useGateway(BACKENDS[0]!, {
    KARIBCHE_MODE: 'production',
    KARIBCHE_PUBLIC_URL: 'https://pay.example',
    KARIBCHE_ACQUIRER_MODULE: TEST_ACQUIRER_MODULE,
  });

  it('sets Secure cookies, upgrades insecure requests, and sends a test callback only through the address guard', async () => {
    const form = await ctx.t.app.inject({ method: 'GET', url: '/dashboard/sign-in?lang=en' });
    assert.match(String(form.headers['content-security-policy']), /upgrade-insecure-requests/);
    assert.ok(
      ([] as string[]).concat(form.headers['set-cookie'] as string[]).every((c) => /; Secure/.test(c)),
      String(form.headers['set-cookie']),
    );
    assert.doesNotMatch(form.body, /demo-merchant\.json/, 'no sandbox hint');
    const receiver = await new Receiver().start();
    try {
      await ctx.t.admin('PATCH', `/admin/v1/merchants/${ctx.m.credentials.clientId}`, {
        callbackUrlPrefixes: [`http://127.0.0.1:${receiver.port}`],
      });
      const b = await DashboardBrowser.signedIn(ctx.t, await createDashboardUser(ctx.t, ctx.m.credentials.clientId));
      assert.match(String(b.cookies.get('kb_dash')), /^[A-Za-z0-9_-]{43}$/);
      const res = await b.submit('/dashboard/callbacks/test', { testUrl: `${receiver.url}/x` }, '/dashboard/callbacks');
      assert.equal(res.statusCode, 200);
      assert.match(mainText(res.body), /did not arrive: callback host 127\.0\.0\.1 is a non-public address/);
      assert.equal(receiver.received.length, 0);
    } finally {
      await receiver.stop();
    }
  });
});
