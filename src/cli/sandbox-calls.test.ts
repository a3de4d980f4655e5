// Which credentials `karibche pay` sends to the sandbox simulate endpoint: the admin token when the
// machine has one, the merchant's token when it has none or the gateway refuses it (a remote
// gateway). A small fake gateway records the headers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../testing/cli-process.ts';

describe('karibche pay: admin token or merchant credentials', () => {
  const simulated: http.IncomingHttpHeaders[] = [];
  let url = '';
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/v1/gateway/access-token')
        return json(200, { access_token: 'merchant-token', token_type: 'Bearer', expires_in: 300 });
      simulated.push(req.headers);
      if (req.headers.authorization === 'Bearer stale-admin-token')
        return json(401, { status: '401', title: 'Invalid admin token', systemCode: 'sandbox.401.003', detail: 'no' });
      json(200, { payId: 'pay_1', status: 'Succeeded', amount: 10, currency: 'GEL', resultCode: 'approved' });
    });
  });
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((r) => server.close(r)));
  const merchant = { KARIBCHE_API_KEY: 'kbk_test', KARIBCHE_CLIENT_ID: 'kc_test', KARIBCHE_CLIENT_SECRET: 'secret' };

  it('without an admin token it pays with the merchant’s credentials', async () => {
    simulated.length = 0;
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-noadmin-'));
    const r = await runCli(['pay', 'pay_1', '--card', '4111111111111111'], {
      KARIBCHE_URL: url,
      KARIBCHE_DATA_DIR: empty,
      ...merchant,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pay_1 +Succeeded/);
    assert.equal(simulated.length, 1);
    assert.equal(simulated[0]!.apikey, 'kbk_test');
    assert.equal(simulated[0]!.authorization, 'Bearer merchant-token');
  });

  it('uses the admin token when there is one, and the merchant’s credentials when the gateway refuses it', async () => {
    simulated.length = 0;
    await runCli(['pay', 'pay_1', '--card', '4111111111111111'], {
      KARIBCHE_URL: url,
      KARIBCHE_ADMIN_TOKEN: 'good-admin-token',
      ...merchant,
    });
    assert.deepEqual(
      simulated.map((h) => h.authorization),
      ['Bearer good-admin-token'],
    );
    simulated.length = 0;
    const r = await runCli(['pay', 'pay_1', '--card', '4111111111111111'], {
      KARIBCHE_URL: url,
      KARIBCHE_ADMIN_TOKEN: 'stale-admin-token',
      ...merchant,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      simulated.map((h) => h.authorization),
      ['Bearer stale-admin-token', 'Bearer merchant-token'],
    );
  });
});
