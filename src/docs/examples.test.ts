// The API reference's examples are real: each example request is sent to a gateway (with the
// ids and credentials of this run in place of the example's), it succeeds, and the answer has the
// shape of the example response. The generated curl, PHP and Node snippets run as they are printed,
// against a listening gateway, with the variables the reference explains.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXAMPLES } from '../api/examples.ts';
import { listeningGateway } from '../testing/browser.ts';
import { BACKENDS } from '../testing/databases.ts';
import { ADMIN_TOKEN, EVERYTHING, MerchantClient, accessToken, type TestGateway } from '../testing/harness.ts';
import { Receiver } from '../testing/receiver.ts';
import { sameShape } from '../testing/same-shape.ts';
import { buildReference, type OpenApiDocument, type ReferenceOperation } from './reference.ts';

for (const backend of BACKENDS) {
  describe(`the reference's examples against a gateway [${backend}]`, () => {
    let t: TestGateway;
    let base: string;
    let m: MerchantClient;
    let ops: Map<string, ReferenceOperation>;
    let rx: Receiver;
    before(async () => {
      ({ t, base } = await listeningGateway(backend));
      m = await MerchantClient.create(t, { ...EVERYTHING, defaultCallbackUrl: null });
      ops = new Map(
        buildReference((await t.app.inject('/openapi.json')).json() as OpenApiDocument).flatMap((g) =>
          g.operations.map((o) => [o.id, o]),
        ),
      );
      rx = await new Receiver().start();
    });
    after(async () => {
      await rx.stop();
      await t.close();
    });

    const op = (id: string) => {
      const o = ops.get(id);
      assert.ok(o, `no operation ${id}`);
      return o;
    };
    /** Sends an operation's example request with `path` parameters and body overrides; checks status and shape. */
    async function send(
      id: string,
      params: Record<string, string> = {},
      body: (b: any) => unknown = (b) => b,
      headers: Record<string, string> = {},
    ) {
      const o = op(id);
      const url = o.path.replace(/\{(\w+)\}/g, (_, p: string) => params[p]!);
      const auth = o.credentials.includes('admin')
        ? { authorization: `Bearer ${ADMIN_TOKEN}` }
        : o.credentials.includes('bearer')
          ? m.headers()
          : { apikey: m.credentials.apiKey };
      const payload = o.request.body === undefined ? undefined : (body(structuredClone(o.request.body)) as object);
      const res = await t.app.inject({
        method: o.method as 'GET',
        url,
        headers: { ...auth, ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
        payload,
      });
      assert.equal(String(res.statusCode), o.response!.status, `${o.method} ${o.path}: ${res.body}`);
      if (o.response!.example !== undefined) sameShape(res.json(), o.response!.example, `${o.method} ${o.path}`);
      return res.json();
    }

    it('every merchant example: token, create, pay, get, refund, completion, saved-card charge, delete', async () => {
      const token = await send('post-v1-gateway-access-token', {}, () => ({
        client_id: m.credentials.clientId,
        client_secret: m.credentials.clientSecret,
      }));
      m.token = token.access_token;
      assert.deepEqual(
        op('post-v1-gateway-payments').request.body,
        EXAMPLES.createPaymentBody,
        'the reference shows the schema’s example',
      );
      const created = await send('post-v1-gateway-payments');
      assert.equal(created.amount, 25.4);
      const paid = await send('post-sandbox-v1-payments-payid-simulate', { payId: created.payId });
      assert.equal(paid.status, 'Succeeded');
      const got = await send('get-v1-gateway-payments-payid', { payId: created.payId });
      assert.equal(got.merchantPaymentId, 'order-1004');
      const refund = await send('post-v1-gateway-payments-payid-cancel', { payId: created.payId });
      assert.deepEqual([refund.status, refund.amount, refund.returnedAmount], ['PartialReturned', 5, 5]);

      const preAuth = (
        await m.createPayment({
          amount: { currency: 'GEL', total: 100 },
          returnurl: 'https://shop.example/return',
          preAuth: true,
          saveCard: true,
        })
      ).json();
      await send('post-sandbox-v1-payments-payid-simulate', { payId: preAuth.payId });
      const completed = await send('post-v1-gateway-payments-payid-completion', { payId: preAuth.payId });
      assert.deepEqual([completed.status, completed.confirmedAmount], ['Succeeded', 80]);
      const recId = (await m.getPayment(preAuth.payId)).json().recurringCard.recId;
      const charged = await send('post-v1-gateway-payments-execution', {}, (b) => ({ ...b, recId }));
      assert.deepEqual([charged.status, charged.amount, charged.paymentMethod], ['Succeeded', 12.5, 11]);
      await send('post-v1-gateway-payments-recid-delete', { recId });
      await send('get-v1-gateway-payments', {});
      await send('get-v1-gateway-payments-payid-callbacks', { payId: created.payId });
    });

    it('every operator and sandbox example: merchants, settings, clock, test callback', async () => {
      const merchant = await send('post-admin-v1-merchants');
      assert.equal(merchant.merchant.name, 'Corner Shop');
      await send('patch-admin-v1-merchants-clientid', { clientId: merchant.merchant.clientId });
      await send('get-admin-v1-merchants-clientid', { clientId: merchant.merchant.clientId });
      await send('get-sandbox-v1-clock');
      const moved = await send('post-sandbox-v1-clock');
      assert.equal(moved.offsetSeconds, 3600);
      // The example's URL is the shop's; this run's receiver stands in for it.
      await send('post-sandbox-v1-callbacks-test', {}, (b) => ({
        ...b,
        clientId: m.credentials.clientId,
        url: rx.url,
      }));
      assert.equal(rx.received.length, 1);
    });

    it('runs the curl, PHP and Node snippets as printed, with the reference’s variables', {
      timeout: 60_000,
    }, async (ctx) => {
      m.token = await accessToken(t.app, m.credentials);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-snippets-'));
      const create = op('post-v1-gateway-payments').snippets;
      const get = op('get-v1-gateway-payments-payid').snippets;
      const vars = { BASE: base, API_KEY: m.credentials.apiKey, TOKEN: m.token };
      // Asynchronously: the gateway answering the snippet runs in this process's event loop.
      const run = async (cmd: string, args: string[], env: Record<string, string> = {}) => {
        const { stdout } = await promisify(execFile)(cmd, args, {
          encoding: 'utf8',
          env: { ...process.env, ...env },
          timeout: 20_000,
        });
        return JSON.parse(stdout.trim().split('\n').at(-1)!);
      };
      // curl: the snippet itself, in a shell with the variables set.
      const viaCurl = await run('sh', ['-c', `${create.curl} -s`], vars);
      assert.equal(viaCurl.status, 'Created');
      assert.equal(
        (await run('sh', ['-c', `${get.curl} -s`], { ...vars, PAY_ID: viaCurl.payId })).payId,
        viaCurl.payId,
      );
      // Node: the snippet in a module that sets the variables first and prints the answer.
      const nodeFile = path.join(dir, 'create.mjs');
      fs.writeFileSync(
        nodeFile,
        `const base = ${JSON.stringify(base)}, apiKey = ${JSON.stringify(vars.API_KEY)}, token = ${JSON.stringify(vars.TOKEN)};\n${create.node}\nconsole.log(JSON.stringify(answer));\n`,
      );
      assert.equal((await run(process.execPath, [nodeFile])).status, 'Created');
      // PHP, when this machine has it (the callback samples' test says so too).
      if (spawnSync('php', ['--version']).status !== 0) {
        ctx.diagnostic('php is not installed: the PHP snippet was not run');
        return;
      }
      const phpFile = path.join(dir, 'create.php');
      fs.writeFileSync(
        phpFile,
        create.php.replace(
          '<?php\n',
          `<?php\n$base = ${JSON.stringify(base)}; $apiKey = ${JSON.stringify(vars.API_KEY)}; $token = ${JSON.stringify(vars.TOKEN)};\n`,
        ) + '\necho json_encode($answer), "\\n";\n',
      );
      assert.equal((await run('php', [phpFile])).status, 'Created');
    });
  });
}
