// The sandbox's first start writes the admin token and the demo merchant's credentials and dashboard
// user to the data dir; a restart never rotates them unless the data dir lost them, and when it does
// it says so (the result's `rotated`, a warn line, the banner in main.ts). A data dir from before
// the dashboard gains the dashboard user once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { NewCredentials } from '../merchants/store.ts';
import { BACKENDS } from '../testing/databases.ts';
import { DashboardBrowser } from '../testing/dashboard.ts';
import { accessToken, startTestGateway, type TestGateway } from '../testing/harness.ts';
import { DEMO_USER_EMAIL, bootstrapSandbox } from './bootstrap.ts';

interface Line {
  level: number;
  event?: string;
  credential?: string;
  reason?: string;
  clientId?: string;
}

async function sandbox(backend: (typeof BACKENDS)[number], env: Record<string, string> = {}) {
  const lines: Line[] = [];
  const t = await startTestGateway(
    backend,
    { LOG_LEVEL: 'info', ...env },
    { logStream: { write: (l: string) => void lines.push(JSON.parse(l)) } },
  );
  const demoFile = path.join(t.testDb.dataDir, 'demo-merchant.json');
  const fileCreds = (): NewCredentials => JSON.parse(fs.readFileSync(demoFile, 'utf8')).credentials;
  const rotations = () => lines.filter((l) => l.event === 'credentials.rotated');
  return { t, lines, demoFile, fileCreds, rotations };
}

/** What the gateway's last start re-issued. */
const rotated = (t: TestGateway) => t.gw.bootstrap!.rotated.map((r) => r.credential);

const works = async (t: TestGateway, c: NewCredentials) =>
  accessToken(t.app, c).then(
    () => true,
    () => false,
  );

for (const backend of BACKENDS) {
  describe(`sandbox bootstrap across restarts [${backend}]`, () => {
    it('a restart with its data dir intact rotates nothing and rewrites nothing', async () => {
      const { t, demoFile, fileCreds, rotations } = await sandbox(backend);
      try {
        assert.equal(t.gw.bootstrap!.demoCreated, true);
        assert.deepEqual(rotated(t), []);
        const first = fileCreds();
        const written = fs.statSync(demoFile).mtimeMs;
        for (let i = 0; i < 2; i++) {
          await t.restart();
          assert.equal(t.gw.bootstrap!.demoCreated, false);
          assert.deepEqual(rotated(t), []);
          assert.deepEqual(t.gw.bootstrap!.demo, first);
        }
        assert.equal(fs.statSync(demoFile).mtimeMs, written, 'the credentials file was not rewritten');
        assert.deepEqual(rotations(), []);
        assert.ok(await works(t, first));
      } finally {
        await t.close();
      }
    });

    it('a lost credentials file: a new client secret and API key, said in the result and a warn line; the callback secret is kept', async () => {
      const { t, demoFile, fileCreds, rotations } = await sandbox(backend);
      try {
        const before = fileCreds();
        fs.rmSync(demoFile);
        await t.restart();
        const after = fileCreds();
        assert.deepEqual(t.gw.bootstrap!.demo, after);
        assert.deepEqual(rotated(t), ['demoClientSecret', 'demoApiKey', 'demoDashboardPassword']);
        for (const r of t.gw.bootstrap!.rotated) assert.match(r.reason, /demo-merchant\.json is missing/);
        assert.equal(after.clientId, before.clientId);
        assert.notEqual(after.clientSecret, before.clientSecret);
        assert.notEqual(after.apiKey, before.apiKey);
        assert.equal(after.callbackSecret, before.callbackSecret, 'the callback secret is stored: it need not change');
        assert.ok(await works(t, after));
        assert.equal(await works(t, before), false, 'the old client secret no longer works');
        const warned = rotations();
        assert.deepEqual(
          warned.map((l) => [l.level, l.credential, l.clientId]),
          [
            [40, 'demoClientSecret', before.clientId],
            [40, 'demoApiKey', before.clientId],
            [40, 'demoDashboardPassword', before.clientId],
          ],
        );
        // The next restart finds the new file and rotates nothing.
        await t.restart();
        assert.deepEqual(rotated(t), []);
        assert.deepEqual(fileCreds(), after);
      } finally {
        await t.close();
      }
    });

    it("a file holding another database's demo merchant is replaced, and the restart says why", async () => {
      const { t, demoFile, fileCreds } = await sandbox(backend);
      try {
        const mine = fileCreds();
        const other = { ...mine, clientId: 'kc00000000000000000000' };
        fs.writeFileSync(demoFile, JSON.stringify({ credentials: other }));
        await t.restart();
        assert.deepEqual(rotated(t), ['demoClientSecret', 'demoApiKey', 'demoDashboardPassword']);
        for (const r of t.gw.bootstrap!.rotated)
          assert.match(r.reason, /holds merchant kc00000000000000000000, not this database's demo merchant/);
        assert.equal(fileCreds().clientId, mine.clientId);
        assert.ok(await works(t, fileCreds()));
      } finally {
        await t.close();
      }
    });

    it('only what no longer works is issued anew: a client secret the operator rotated, not the API key', async () => {
      const { t, fileCreds } = await sandbox(backend);
      try {
        const before = fileCreds();
        const res = await t.admin('POST', `/admin/v1/merchants/${before.clientId}/client-secret`);
        assert.equal(res.statusCode, 200, res.body);
        await t.restart();
        assert.deepEqual(
          t.gw.bootstrap!.rotated.map((r) => [r.credential, r.reason]),
          [
            [
              'demoClientSecret',
              `the client secret in ${path.join(t.testDb.dataDir, 'demo-merchant.json')} no longer matches`,
            ],
          ],
        );
        assert.equal(fileCreds().apiKey, before.apiKey);
        assert.ok(await works(t, fileCreds()));
      } finally {
        await t.close();
      }
    });

    it('a lost admin token file: a new token, reported; the environment token is never rotated', async () => {
      const { t, rotations } = await sandbox(backend, { KARIBCHE_ADMIN_TOKEN: '' });
      try {
        const tokenFile = path.join(t.testDb.dataDir, 'admin-token');
        const first = fs.readFileSync(tokenFile, 'utf8').trim();
        assert.deepEqual(rotated(t), []);
        await t.restart();
        assert.deepEqual(rotated(t), []);
        fs.rmSync(tokenFile);
        await t.restart();
        assert.deepEqual(rotated(t), ['adminToken']);
        assert.notEqual(fs.readFileSync(tokenFile, 'utf8').trim(), first);
        assert.deepEqual(
          rotations().map((l) => l.credential),
          ['adminToken'],
        );
        const asked = await t.app.inject({ url: '/admin/v1/merchants', headers: { authorization: `Bearer ${first}` } });
        assert.equal(asked.statusCode, 401, 'the old admin token no longer works');
      } finally {
        await t.close();
      }
    });

    it('processes starting together after the file was lost re-issue once and agree on the credentials', async () => {
      const { t, demoFile } = await sandbox(backend);
      try {
        fs.rmSync(demoFile);
        const config = t.gw.services.config;
        const results = await Promise.all([1, 2, 3].map(() => bootstrapSandbox(t.testDb.db, config, t.clock)));
        assert.equal(
          results.filter((r) => r.rotated.length > 0).length,
          1,
          JSON.stringify(results.map((r) => r.rotated)),
        );
        for (const r of results) assert.deepEqual(r.demo, results[0]!.demo);
        assert.ok(await works(t, results[0]!.demo!));
      } finally {
        await t.close();
      }
    });
  });
}

for (const backend of BACKENDS) {
  describe(`sandbox bootstrap: the demo merchant's dashboard user [${backend}]`, () => {
    const signsIn = async (t: TestGateway, login: { email: string; password: string }) =>
      (await new DashboardBrowser(t.app).signIn(login)).statusCode === 303;
    const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

    it('writes the user to demo-merchant.json on first start ("dashboard": email, password); a restart keeps the file as it is', async () => {
      const { t, demoFile } = await sandbox(backend);
      try {
        const demo = read(demoFile);
        assert.equal(demo.dashboard.email, DEMO_USER_EMAIL);
        assert.match(demo.dashboard.password, /^[A-Za-z0-9_-]{20}$/);
        assert.deepEqual(t.gw.bootstrap?.dashboard, demo.dashboard, 'the banner prints what the file holds');
        const b = await DashboardBrowser.signedIn(t, demo.dashboard);
        assert.match((await b.get('/dashboard/payments')).body, /Karibche Demo Shop/);
        const text = fs.readFileSync(demoFile, 'utf8');
        const mtime = fs.statSync(demoFile).mtimeMs;
        await t.restart();
        assert.deepEqual(rotated(t), []);
        assert.equal(fs.readFileSync(demoFile, 'utf8'), text);
        assert.equal(fs.statSync(demoFile).mtimeMs, mtime, 'not rewritten');
        assert.ok(await signsIn(t, demo.dashboard));
      } finally {
        await t.close();
      }
    });

    it('adds the user to a data dir from before the dashboard, keeping the API credentials, rotating nothing', async () => {
      const { t, demoFile } = await sandbox(backend);
      try {
        const old = read(demoFile);
        delete old.dashboard;
        fs.writeFileSync(demoFile, `${JSON.stringify(old, null, 2)}\n`);
        await t.gw.services.db.query('DELETE FROM dashboard_users');
        await t.restart();
        assert.deepEqual(rotated(t), [], 'a first issue, not a rotation');
        const now = read(demoFile);
        assert.deepEqual(now.credentials, old.credentials, 'the API credentials are unchanged');
        assert.equal(now.dashboard.email, DEMO_USER_EMAIL);
        assert.ok(await signsIn(t, now.dashboard));
      } finally {
        await t.close();
      }
    });

    it('gives the user a new password when the file is lost, and says so; the old one stops working', async () => {
      const { t, demoFile } = await sandbox(backend);
      try {
        const old = read(demoFile);
        fs.rmSync(demoFile);
        await t.restart();
        const now = read(demoFile);
        assert.ok(rotated(t).includes('demoDashboardPassword'));
        assert.notEqual(now.dashboard.password, old.dashboard.password);
        assert.ok(await signsIn(t, now.dashboard));
        assert.equal(await signsIn(t, old.dashboard), false);
      } finally {
        await t.close();
      }
    });
  });
}
