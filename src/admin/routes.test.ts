import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { listMigrations } from '../store/migrate.ts';
import { cliArgs } from '../testing/cli-process.ts';
import { BACKENDS } from '../testing/databases.ts';
import {
  ADMIN_TOKEN,
  MerchantClient,
  accessToken,
  basicPayment,
  createMerchant,
  startTestGateway,
  type TestGateway,
} from '../testing/harness.ts';

const run = promisify(execFile);

for (const backend of BACKENDS) {
  describe(`operator API [${backend}]`, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(backend);
    });
    after(() => t.close());

    it('refuses calls without the admin token', async () => {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: ADMIN_TOKEN }]) {
        const res = await t.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers, payload: { name: 'X' } });
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().systemCode, 'admin.401.003');
      }
      const clock = await t.app.inject({ method: 'GET', url: '/sandbox/v1/clock' });
      assert.equal(clock.json().systemCode, 'sandbox.401.003');
    });

    it('creates a merchant with defaults, shows its secrets once and stores only hashes', async () => {
      const res = await t.admin('POST', '/admin/v1/merchants', { name: 'Corner Shop' });
      assert.equal(res.statusCode, 201);
      const { merchant, credentials } = res.json();
      assert.deepEqual(
        { ...merchant, clientId: undefined, createdAt: undefined, updatedAt: undefined },
        {
          clientId: undefined,
          name: 'Corner Shop',
          status: 'active',
          currencies: ['GEL'],
          methods: [5],
          splitEnrolled: false,
          saveCardEnabled: false,
          defaultCallbackUrl: null,
          callbackUrlPrefixes: [],
          testMode: false,
          testAmountLimit: 100,
          brandColor: null,
          logoUrl: null,
          profile: 'karibche',
          transactionLimit: 3000,
          dailyLimit: 10000,
          createdAt: undefined,
          updatedAt: undefined,
        },
      );
      assert.equal(credentials.clientId, merchant.clientId);
      for (const k of ['clientSecret', 'apiKey', 'callbackSecret']) assert.ok(credentials[k].length >= 32, k);
      const got = await t.admin('GET', `/admin/v1/merchants/${merchant.clientId}`);
      assert.equal(got.statusCode, 200);
      for (const secret of [credentials.clientSecret, credentials.apiKey]) {
        assert.ok(!got.body.includes(secret));
        const dump = await t.gw.services.db.query(
          `SELECT m::text AS row FROM merchants m UNION ALL SELECT k::text FROM api_keys k`,
        );
        assert.ok(!dump.rows.some((r) => String(r.row).includes(secret)), 'secret stored in clear');
      }
      const listed = await t.admin('GET', '/admin/v1/merchants');
      assert.ok(listed.json().merchants.some((m: { clientId: string }) => m.clientId === merchant.clientId));
    });

    it('validates settings with invalidParams', async () => {
      const res = await t.admin('POST', '/admin/v1/merchants', {
        name: '',
        currencies: ['GEL', 'JPY'],
        methods: [5, 11],
        callbackUrlPrefixes: ['ftp://x'],
        testAmountLimit: '1.001',
        brandColor: 'red',
        status: 'closed',
      });
      assert.equal(res.statusCode, 400);
      const body = res.json();
      assert.equal(body.systemCode, 'admin.400.001');
      assert.deepEqual(body.invalidParams.map((p: { name: string }) => p.name).sort(), [
        'brandColor',
        'callbackUrlPrefixes[0]',
        'currencies',
        'methods',
        'name',
        'status',
        'testAmountLimit',
      ]);
      assert.equal((await t.admin('POST', '/admin/v1/merchants', {})).json().invalidParams[0].name, 'name');
      // The name is shown on every checkout page and dashboard: no control character gets in.
      assert.equal(
        (await t.admin('POST', '/admin/v1/merchants', { name: 'Shop \ud800' })).statusCode,
        400,
        'a lone surrogate (refused before the rules)',
      );
      for (const name of ['Shop\u0085', 'Shop\u001b[31m', 'Shop\nName']) {
        const bad = await t.admin('POST', '/admin/v1/merchants', { name });
        assert.deepEqual([bad.statusCode, bad.json().invalidParams?.[0]?.name], [400, 'name'], JSON.stringify(name));
      }
      assert.equal((await t.admin('POST', '/admin/v1/merchants', { name: 'მაღაზია №1' })).statusCode, 201);
      assert.equal(
        (await t.admin('PATCH', '/admin/v1/merchants/kcnobody', { name: 'x' })).json().systemCode,
        'admin.404.003',
      );
      assert.equal((await t.admin('GET', '/admin/v1/merchants/kcnobody')).statusCode, 404);
      for (const action of ['api-keys', 'client-secret', 'callback-secret']) {
        const res = await t.admin('POST', `/admin/v1/merchants/kcnobody/${action}`);
        assert.equal(res.statusCode, 404, action);
        assert.equal(res.json().systemCode, 'admin.404.003');
      }
      assert.equal((await t.admin('PATCH', '/admin/v1/merchants/kcnobody', {})).statusCode, 404);
    });

    it('updates every setting; changes apply to the merchant API at once; null clears', async () => {
      const { credentials } = await createMerchant(t);
      const m = new MerchantClient(t.app, credentials, await accessToken(t.app, credentials));
      assert.equal(
        (await m.createPayment(basicPayment({ amount: { currency: 'USD', total: 1 } }))).json().systemCode,
        'create-payment.400.011',
      );
      const patch = {
        name: 'Renamed',
        currencies: ['usd', 'GEL'],
        methods: [7, 5, 4],
        splitEnrolled: true,
        saveCardEnabled: true,
        defaultCallbackUrl: 'https://shop.example/cb',
        callbackUrlPrefixes: ['https://shop.example/'],
        testMode: true,
        testAmountLimit: 20,
        brandColor: '#1A73E8',
        logoUrl: 'data:image/png;base64,iVBORw0KGgo=',
      };
      const res = await t.admin('PATCH', `/admin/v1/merchants/${credentials.clientId}`, patch);
      assert.equal(res.statusCode, 200, res.body);
      const v = res.json();
      assert.deepEqual(
        [
          v.name,
          v.currencies,
          v.methods,
          v.splitEnrolled,
          v.saveCardEnabled,
          v.defaultCallbackUrl,
          v.callbackUrlPrefixes,
          v.testMode,
          v.testAmountLimit,
          v.brandColor,
          v.logoUrl,
        ],
        [
          'Renamed',
          ['USD', 'GEL'],
          [4, 5, 7],
          true,
          true,
          'https://shop.example/cb',
          ['https://shop.example/'],
          true,
          20,
          '#1a73e8',
          patch.logoUrl,
        ],
      );
      assert.equal((await m.createPayment(basicPayment({ amount: { currency: 'USD', total: 1 } }))).statusCode, 200);
      assert.equal(
        (await m.createPayment(basicPayment({ amount: { currency: 'USD', total: 21 } }))).json().systemCode,
        'create-payment.400.024',
      );
      const cleared = await t.admin('PATCH', `/admin/v1/merchants/${credentials.clientId}`, {
        defaultCallbackUrl: null,
        brandColor: null,
      });
      assert.equal(cleared.json().defaultCallbackUrl, null);
      assert.equal(cleared.json().brandColor, null);
      assert.equal(cleared.json().name, 'Renamed');
    });

    it('rotates the callback secret, keeping the previous one for 24 h', async () => {
      const { credentials } = await createMerchant(t);
      const res = await t.admin('POST', `/admin/v1/merchants/${credentials.clientId}/callback-secret`);
      assert.equal(res.statusCode, 200);
      const row = (
        await t.gw.services.db.query<any>('SELECT * FROM merchants WHERE client_id = $1', [credentials.clientId])
      ).rows[0];
      assert.equal(row.callback_secret, res.json().callbackSecret);
      assert.equal(row.callback_secret_prev, credentials.callbackSecret);
      assert.equal(new Date(row.callback_secret_prev_until).getTime() - t.clock.nowMs() > 23 * 3600_000, true);
    });

    it('adds an API key that works at once, the earlier one too; a new client secret stops the old one', async () => {
      const { credentials } = await createMerchant(t);
      const added = await t.admin('POST', `/admin/v1/merchants/${credentials.clientId}/api-keys`);
      assert.equal(added.statusCode, 200, added.body);
      const apiKey: string = added.json().apiKey;
      assert.notEqual(apiKey, credentials.apiKey);
      for (const key of [credentials.apiKey, apiKey])
        assert.ok(await accessToken(t.app, { ...credentials, apiKey: key }));
      const rotated = await t.admin('POST', `/admin/v1/merchants/${credentials.clientId}/client-secret`);
      assert.equal(rotated.statusCode, 200, rotated.body);
      await assert.rejects(accessToken(t.app, credentials), /access-token\.400\.001/);
      assert.ok(await accessToken(t.app, { ...credentials, clientSecret: rotated.json().clientSecret }));
    });

    it('drives the same API from the karibche CLI', { timeout: 60_000 }, async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address() as { port: number };
      const env = {
        ...process.env,
        KARIBCHE_URL: `http://127.0.0.1:${address.port}`,
        KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN,
      };
      // The runner's compiled CLI (a start through tsx costs ~0.5 s of CPU more); the refused token
      // below goes through the shipped bin/karibche.js.
      const cli = (...args: string[]) => run(process.execPath, cliArgs(args), { env });

      const created = JSON.parse(
        (
          await cli(
            'merchant',
            'create',
            '--name',
            'CLI Shop',
            '--currencies',
            'GEL,EUR',
            '--methods',
            '4,5',
            '--register-callback',
            'http://localhost:9000/',
            '--json',
          )
        ).stdout,
      );
      assert.equal(created.merchant.name, 'CLI Shop');
      assert.deepEqual(created.merchant.currencies, ['GEL', 'EUR']);
      assert.deepEqual(created.merchant.callbackUrlPrefixes, ['http://localhost:9000/']);
      const id = created.merchant.clientId;
      const updated = JSON.parse(
        (
          await cli(
            'merchant',
            'update',
            id,
            '--methods',
            '4,5,7',
            '--currencies',
            'GEL,USD',
            '--split',
            'on',
            '--save-card',
            'on',
            '--callback-url',
            'http://localhost:9000/cb',
            '--register-callback',
            'http://localhost:9000/',
            '--register-callback',
            'http://127.0.0.1/',
            '--test-mode',
            'on',
            '--test-limit',
            '50',
            '--json',
          )
        ).stdout,
      );
      assert.deepEqual(
        [
          updated.methods,
          updated.currencies,
          updated.splitEnrolled,
          updated.saveCardEnabled,
          updated.defaultCallbackUrl,
          updated.callbackUrlPrefixes,
          updated.testMode,
          updated.testAmountLimit,
        ],
        [
          [4, 5, 7],
          ['GEL', 'USD'],
          true,
          true,
          'http://localhost:9000/cb',
          ['http://localhost:9000/', 'http://127.0.0.1/'],
          true,
          50,
        ],
      );
      const human = (await cli('merchant', 'get', id)).stdout;
      assert.match(human, /name\s+CLI Shop/);
      assert.match((await cli('merchant', 'api-key', id, '--json')).stdout, /"apiKey": "kbk_/);
      const before = t.clock.nowMs();
      const adv = JSON.parse((await cli('clock', 'advance', '120', '--json')).stdout);
      assert.ok(new Date(adv.now).getTime() - before >= 120_000);
      await assert.rejects(cli('merchant', 'update', id, '--split', 'maybe'), /--split takes on or off/);
      await assert.rejects(
        cli('merchant', 'create', '--name', 'X', '--currencies', 'JPY'),
        /currencies: unknown currencies: JPY/,
      );
      await assert.rejects(
        run(process.execPath, ['bin/karibche.js', 'merchant', 'list'], {
          env: { ...env, KARIBCHE_ADMIN_TOKEN: 'nope' },
        }),
        /401 Invalid admin token/,
      );
    });
  });
}

describe('karibche migrate', () => {
  it('applies migrations to a fresh PGlite data dir, then reports it up to date', { timeout: 60_000 }, async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-cli-'));
    try {
      const env = { ...process.env, KARIBCHE_DATA_DIR: dir, DATABASE_URL: '' };
      const first = JSON.parse((await run(process.execPath, ['bin/karibche.js', 'migrate', '--json'], { env })).stdout);
      assert.deepEqual(
        first.applied,
        listMigrations().map((m) => m.name),
      );
      // The first through the shipped entry (it finds the migrations beside its code), this one compiled.
      const second = (await run(process.execPath, cliArgs(['migrate']), { env })).stdout;
      assert.match(second, /up to date/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
