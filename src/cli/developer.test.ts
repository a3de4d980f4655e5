// The developer commands against a real gateway process (src/main.ts, as `npm start` runs it), with
// the demo merchant and admin token it writes in its data dir: trigger, payments, pay, listen
// (a real status change forwarded to a local receiver that verifies the signature), logs tail.
// The CLI runs from the bundle the test runner compiled, except where a test asks for bin/karibche.js.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyCallback } from '../../sdk/src/index.ts';
import { freePort } from '../testing/browser.ts';
import { BACKENDS, openTestDb, seedPgliteDataDir, type TestDb } from '../testing/databases.ts';
import { startGatewayProcess, type GatewayProcess } from '../testing/process.ts';
import { runCli, startCli } from '../testing/cli-process.ts';

interface Demo {
  clientId: string;
  apiKey: string;
  clientSecret: string;
  callbackSecret: string;
}

for (const backend of BACKENDS) {
  describe(`karibche developer commands against a gateway process [${backend}]`, { timeout: 600_000 }, () => {
    let proc: GatewayProcess;
    let testDb: TestDb | null = null;
    let dir: string;
    let env: Record<string, string>;
    let demo: Demo;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-cli-'));
      if (backend === 'pglite') {
        await seedPgliteDataDir(dir);
      } else {
        testDb = await openTestDb('postgres');
      }
      const port = await freePort();
      proc = await startGatewayProcess(
        {
          KARIBCHE_DATA_DIR: dir,
          PORT: String(port),
          DATABASE_URL: testDb?.url ?? '',
          KARIBCHE_ADMIN_TOKEN: '',
          KARIBCHE_WORKERS: '1',
          LOG_LEVEL: 'warn',
        },
        { timeoutMs: 180_000 },
      );
      env = { KARIBCHE_URL: `http://127.0.0.1:${port}`, KARIBCHE_DATA_DIR: dir };
      demo = JSON.parse(fs.readFileSync(path.join(dir, 'demo-merchant.json'), 'utf8')).credentials;
    });
    after(async () => {
      await proc?.kill('SIGTERM');
      await testDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const cli = (...args: string[]) => runCli(args, env);
    const ok = async (...args: string[]) => {
      const r = await cli(...args);
      assert.equal(r.code, 0, `karibche ${args.join(' ')}: ${r.stdout}${r.stderr}`);
      return r;
    };

    it('trigger drives a payment through each named lifecycle (expired says it moved the sandbox clock)', async () => {
      const expected: Record<string, RegExp[]> = {
        paid: [/^created .* Created/m, /^paid .* Succeeded/m],
        refunded: [/^paid .* Succeeded/m, /^refunded .* Returned \(10 GEL returned\)/m],
        'preauth-completed': [/^paid .* WaitingConfirm/m, /^completed .* Succeeded \(10 GEL captured\)/m],
        failed: [/^paid .* Created .* decline_general/m, /^paid .* Failed .* decline_general/m],
        expired: [
          /moved the sandbox clock forward 61 s .* the merchant's own clock; other merchants' time does not move/,
          /^done .* Expired/m,
        ],
      };
      for (const [scenario, patterns] of Object.entries(expected)) {
        const r = await ok('trigger', scenario);
        for (const p of patterns) assert.match(r.stdout, p, `${scenario}: ${r.stdout}`);
      }
      const json = await ok('trigger', 'paid', '--amount', '12.5', '--json');
      const payment = JSON.parse(json.stdout);
      assert.deepEqual([payment.status, payment.amount], ['Succeeded', 12.5]);
      assert.match(json.stderr, /^created /m);
      const bad = await cli('trigger', 'exploded');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /takes a scenario: paid, refunded, preauth-completed, failed, expired/);
    });

    it('clock shows the merchant’s own clock, the one trigger expired moves (and says it stays moved)', async () => {
      const before = JSON.parse((await ok('clock', '--json')).stdout);
      assert.equal(before.merchant.clientId, demo.clientId);
      const expired = await ok('trigger', 'expired');
      assert.match(expired.stdout, /clock is now \d+ s ahead of real time and stays so: karibche clock shows it/);
      const after = JSON.parse((await ok('clock', '--json')).stdout);
      assert.equal(after.merchant.merchantOffsetSeconds, before.merchant.merchantOffsetSeconds + 61);
      assert.equal(after.offsetSeconds, before.offsetSeconds, 'the gateway clock did not move');
      const shown = (await ok('clock')).stdout;
      assert.match(
        shown,
        new RegExp(`^gateway clock .*\\(offset ${after.offsetSeconds} s; moves every merchant\\)$`, 'm'),
      );
      assert.match(
        shown,
        new RegExp(
          `^merchant clock .*of which ${after.merchant.merchantOffsetSeconds} s its own; merchant ${demo.clientId}\\)$`,
          'm',
        ),
      );
      // A developer without the admin token still sees the merchant's clock.
      const merchantOnly = await runCli(['clock'], {
        KARIBCHE_URL: env.KARIBCHE_URL!,
        KARIBCHE_API_KEY: demo.apiKey,
        KARIBCHE_CLIENT_ID: demo.clientId,
        KARIBCHE_CLIENT_SECRET: demo.clientSecret,
        KARIBCHE_DATA_DIR: path.join(dir, 'nothing-here'),
      });
      assert.equal(merchantOnly.code, 0, merchantOnly.stderr);
      assert.doesNotMatch(merchantOnly.stdout, /gateway clock/);
      assert.match(merchantOnly.stdout, /^merchant clock /m);
    });

    it('--url is in --help and works for operator and developer commands; credentials prints the banner’s credentials again', async () => {
      // These two through the entry the package ships (bin/karibche.js, tsx), the others through the
      // CLI the test runner compiled (src/testing/cli-process.ts): the same code, started faster.
      const shippedHelp = await runCli(['--help'], env, { shipped: true });
      assert.equal(shippedHelp.code, 0, shippedHelp.stderr);
      for (const help of [shippedHelp, await ok('pay', '--help')]) assert.match(help.stdout, /--url URL/);
      const remote = { KARIBCHE_DATA_DIR: dir };
      const listed = await runCli(['merchant', 'list', '--url', env.KARIBCHE_URL!], remote, { shipped: true });
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(demo.clientId));
      const payments = await runCli(['payments', 'list', '--limit', '1', '--url', env.KARIBCHE_URL!], remote);
      assert.equal(payments.code, 0, payments.stderr);
      // The banner says how to see it again; the command reads the data dir.
      assert.ok(
        proc
          .output()
          .includes(
            `shown again    KARIBCHE_DATA_DIR=${dir} KARIBCHE_URL=${env.KARIBCHE_URL} npx karibche credentials`,
          ),
        proc.output(),
      );
      const file = JSON.parse(fs.readFileSync(path.join(dir, 'demo-merchant.json'), 'utf8'));
      const shown = await ok('credentials');
      for (const v of [
        demo.clientId,
        demo.apiKey,
        demo.clientSecret,
        demo.callbackSecret,
        file.dashboard.email,
        file.dashboard.password,
        path.join(dir, 'admin-token'),
      ])
        assert.ok(shown.stdout.includes(v), `${v} not in:\n${shown.stdout}`);
      assert.deepEqual(JSON.parse((await ok('credentials', '--json')).stdout).credentials, demo);
      const none = await runCli(['credentials'], { KARIBCHE_DATA_DIR: path.join(dir, 'nothing-here') });
      assert.equal(none.code, 1);
      assert.match(none.stderr, /^karibche: no demo merchant in .*nothing-here: start the sandbox gateway once/);
    });

    it('payments list filters by status; payments get shows one payment; errors are one line', async () => {
      const listed = JSON.parse((await ok('payments', 'list', '--status', 'Failed', '--json')).stdout);
      assert.ok(listed.items.length >= 1 && listed.items.every((p: { status: string }) => p.status === 'Failed'));
      const payId = listed.items[0].payId;
      const shown = await ok('payments', 'get', payId);
      assert.match(shown.stdout, new RegExp(`^payId +${payId}$`, 'm'));
      assert.match(shown.stdout, /^status +Failed$/m);
      assert.match(shown.stdout, /^resultCode +decline_general$/m);
      const table = await ok('payments', 'list', '--limit', '2');
      assert.equal(table.stdout.trim().split('\n').length, 2);
      const missing = await cli('payments', 'get', 'pay_missing');
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^karibche: 404 Payment not found \(get-payment\.404\.001\)/);
      assert.doesNotMatch(missing.stderr, /\n\s+at /, 'no stack trace');
    });

    it('pay answers a 3-D Secure challenge with --otp, and pays with another method', async () => {
      const created = await createPayment(env.KARIBCHE_URL!, demo);
      const challenged = await ok('pay', created, '--card', '4000000000003220');
      assert.match(challenged.stdout, /Processing/);
      assert.match(challenged.stdout, new RegExp(`karibche pay ${created} --otp 1234`));
      assert.match((await ok('pay', created, '--otp', '1234')).stdout, /Succeeded/);
      // The challenge card with its code in one command: on a fresh payment, and on one already
      // waiting for the code (the card given before) — issue 26: "The payment is Processing".
      const atOnce = await createPayment(env.KARIBCHE_URL!, demo);
      assert.match((await ok('pay', atOnce, '--card', '4000000000003220', '--otp', '1234')).stdout, /Succeeded/);
      const waiting = await createPayment(env.KARIBCHE_URL!, demo);
      assert.match((await ok('pay', waiting, '--card', '4000000000003220')).stdout, /Processing/);
      const answered = await ok('pay', waiting, '--card', '4000000000003220', '--otp', '1234');
      assert.match(answered.stdout, /waiting for its 3-D Secure code: answering it with --otp 1234/);
      assert.match(answered.stdout, new RegExp(`^${waiting} +Succeeded`, 'm'));
      const wrong = await createPayment(env.KARIBCHE_URL!, demo);
      await ok('pay', wrong, '--card', '4000000000003220');
      assert.doesNotMatch((await ok('pay', wrong, '--card', '4000000000003220', '--otp', '0000')).stdout, /Succeeded/);
      const qr = await createPayment(env.KARIBCHE_URL!, demo);
      assert.match(
        (await ok('pay', qr, '--method', '4', '--outcome', 'decline')).stdout,
        /Created .*declined; the customer may try again/s,
      );
      const refused = await cli('pay', qr);
      assert.match(refused.stderr, /needs --card/);
    });

    it('credentials come from the flags, else the environment, else the demo file; one source gives all three', async () => {
      const created = await fetch(`${env.KARIBCHE_URL}/admin/v1/merchants`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${fs.readFileSync(path.join(dir, 'admin-token'), 'utf8').trim()}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'Second Shop' }),
      });
      const other = (await created.json()).credentials;
      const viaEnv = await runCli(['payments', 'list', '--json'], {
        ...env,
        KARIBCHE_API_KEY: other.apiKey,
        KARIBCHE_CLIENT_ID: other.clientId,
        KARIBCHE_CLIENT_SECRET: other.clientSecret,
      });
      assert.deepEqual(JSON.parse(viaEnv.stdout).items, [], 'the second merchant has no payments');
      const viaFlags = await runCli(
        [
          'payments',
          'list',
          '--json',
          '--api-key',
          demo.apiKey,
          '--client-id',
          demo.clientId,
          '--client-secret',
          demo.clientSecret,
        ],
        {
          ...env,
          KARIBCHE_API_KEY: other.apiKey,
          KARIBCHE_CLIENT_ID: other.clientId,
          KARIBCHE_CLIENT_SECRET: other.clientSecret,
        },
      );
      assert.ok(JSON.parse(viaFlags.stdout).items.length > 0, 'the flags win over the environment');
      const partial = await cli('payments', 'list', '--api-key', demo.apiKey);
      assert.equal(partial.code, 1);
      assert.match(
        partial.stderr,
        /incomplete merchant credentials from the flags: --client-id, --client-secret missing/,
      );
      const none = await runCli(['payments', 'list'], {
        KARIBCHE_URL: env.KARIBCHE_URL!,
        KARIBCHE_DATA_DIR: path.join(dir, 'nothing-here'),
      });
      assert.match(none.stderr, /no merchant credentials: pass --api-key/);
    });

    it('listen forwards a real status change to a local receiver, signed like a real callback under both schemes', async () => {
      const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
      const server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          received.push({ headers: req.headers, body });
          try {
            verifyCallback(req.headers, body, demo.callbackSecret);
            res.writeHead(200).end('verified');
          } catch (err) {
            res.writeHead(400).end((err as Error).message);
          }
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/karibche`;
      const listener = startCli(['listen', '--forward-to', target], env);
      try {
        await listener.waitFor(/ready: listening for new status changes/);
        const paid = await ok('trigger', 'paid');
        const payId = /^created\s+(\S+)/m.exec(paid.stdout)![1]!;
        await listener.waitFor(
          new RegExp(`${payId}  Processing → Succeeded  POST ${target} → 200 \\(\\d+ ms\\) verified`),
        );
        assert.match(listener.stdout(), new RegExp(`${payId}  Created → Processing  \\(not final: not forwarded\\)`));
        assert.equal(received.length, 1);
        const [callback] = received;
        assert.equal(callback!.body, JSON.stringify({ PaymentId: payId }));
        const only = (keep: RegExp) =>
          Object.fromEntries(
            Object.entries(callback!.headers).filter(
              ([k]) => !/^(x-callback-signature|webhook-)/.test(k) || keep.test(k),
            ),
          );
        assert.equal(
          verifyCallback(only(/^x-callback/), callback!.body, demo.callbackSecret).scheme,
          'x-callback-signature',
        );
        assert.equal(
          verifyCallback(only(/^webhook-/), callback!.body, demo.callbackSecret).scheme,
          'standard-webhooks',
        );
        // The same callback id and sequence the gateway's own callback of this change carries.
        const events = await (
          await fetch(`${env.KARIBCHE_URL}/v1/gateway/events`, {
            headers: await merchantHeaders(env.KARIBCHE_URL!, demo),
          })
        ).json();
        const succeeded = events.items.find(
          (e: { payId: string; status: string }) => e.payId === payId && e.status === 'Succeeded',
        );
        assert.equal(callback!.headers['x-callback-id'], succeeded.callbackId);
        assert.equal(callback!.headers['x-callback-sequence'], String(succeeded.sequence));
      } finally {
        assert.equal(await listener.stop(), 0, listener.stderr());
        server.closeAllConnections();
        server.close();
      }
    });

    it('logs tail prints the latest requests, then follows new ones', async () => {
      const tail = startCli(['logs', 'tail', '--interval', '300'], env);
      try {
        await tail.waitFor(/\d{3} {2}(GET|POST)/);
        await cli('payments', 'get', 'pay_followed');
        await tail.waitFor(/404 {2}GET +\/v1\/gateway\/payments\/pay_followed {2}get-payment\.404\.001/);
        assert.doesNotMatch(tail.stdout(), /\/v1\/gateway\/requests/, 'its own polling is not shown');
      } finally {
        assert.equal(await tail.stop(), 0);
      }
      const once = await ok('logs', 'tail', '--once', '--status', '4xx');
      assert.ok(
        once.stdout
          .trim()
          .split('\n')
          .every((l) => / {2}4\d\d {2}/.test(l)),
        once.stdout,
      );
    });
  });
}

async function merchantHeaders(base: string, c: Demo): Promise<Record<string, string>> {
  const res = await fetch(`${base}/v1/gateway/access-token`, {
    method: 'POST',
    headers: { apikey: c.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: c.clientId, client_secret: c.clientSecret }),
  });
  return { apikey: c.apiKey, authorization: `Bearer ${(await res.json()).access_token}` };
}

async function createPayment(base: string, c: Demo): Promise<string> {
  const res = await fetch(`${base}/v1/gateway/payments`, {
    method: 'POST',
    headers: { ...(await merchantHeaders(base, c)), 'content-type': 'application/json' },
    body: JSON.stringify({ amount: { currency: 'GEL', total: 3 }, returnurl: 'https://shop.example/r' }),
  });
  return (await res.json()).payId;
}
