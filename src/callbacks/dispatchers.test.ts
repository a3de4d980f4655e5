// Callback delivery across processes on one PostgreSQL: several dispatchers, notification
// wake-up, and a gateway killed while a delivery is in flight.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Gateway } from '../gateway.ts';
import { attemptPayment } from '../payments/attempt.ts';
import { freePort } from '../testing/browser.ts';
import { openTestDb } from '../testing/databases.ts';
import { describePostgres } from '../testing/postgres-only.ts';
import {
  ADMIN_TOKEN,
  MerchantClient,
  basicPayment,
  secondGateway,
  startTestGateway,
  type TestGateway,
} from '../testing/harness.ts';
import { startGatewayProcess } from '../testing/process.ts';
import { Receiver } from '../testing/receiver.ts';
import { untilAsleep } from '../testing/wait.ts';

const CARD = { number: '4111111111111111', expMonth: 12, expYear: 2030, securityCode: '123', holder: 'A' };

describePostgres('callback delivery across processes [postgres]', () => {
  describe('callback dispatchers on one PostgreSQL', () => {
    let t: TestGateway;
    const others: Gateway[] = [];
    let rx: Receiver;
    before(async () => {
      t = await startTestGateway('postgres');
      rx = await new Receiver().start();
      for (let i = 0; i < 2; i++) others.push(await secondGateway(t));
    });
    after(async () => {
      for (const g of others) {
        await g.close();
        await g.services.db.close();
      }
      await rx.stop();
      await t.close();
    });

    it('three dispatchers share the work and never send one callback twice', async () => {
      rx.delayMs = 20; // slow answers widen any window for a duplicate
      const m = await MerchantClient.create(t);
      const ids: string[] = [];
      for (let i = 0; i < 90; i++)
        ids.push((await m.createPayment(basicPayment({ callbackUrl: rx.url }))).json().payId);
      for (const id of ids) await attemptPayment(t.gw.services, id, { method: 5, card: CARD });
      const before = rx.received.length;
      await Promise.all([t.gw.services.callbacks.drain(), ...others.map((g) => g.services.callbacks.drain())]);
      const got = rx.received.slice(before);
      assert.equal(got.length, 90);
      const perId = new Map<string, number>();
      for (const r of got)
        perId.set(String(r.headers['x-callback-id']), (perId.get(String(r.headers['x-callback-id'])) ?? 0) + 1);
      assert.equal(perId.size, 90);
      assert.ok([...perId.values()].every((n) => n === 1));
      const { rows } = await t.gw.services.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM callback_attempts WHERE pay_id = ANY($1)`,
        [ids],
      );
      assert.equal(rows[0]!.n, 90);
      rx.delayMs = 0;
    });

    it('the process that commits a final status delivers at once, without waiting for its poll', async () => {
      const live = await secondGateway(
        t,
        { KARIBCHE_CALLBACK_POLL_MS: '60000', KARIBCHE_SWEEP_INTERVAL_MS: '60000' },
        { background: true },
      );
      try {
        const m = await MerchantClient.create(t);
        const id = (await m.createPayment(basicPayment({ callbackUrl: rx.url }))).json().payId;
        const before = rx.received.length;
        await untilAsleep(live.services.callbacks);
        // Committed by the process whose dispatcher sleeps: woken by its own commit (no server
        // NOTIFY any more, which serialised every notifying commit: issue 25).
        await attemptPayment(live.services, id, { method: 5, card: CARD });
        // Asleep for a 60 s poll: a delivery within 20 s (however loaded the machine) is the wake-up's.
        await rx.waitFor(before + 1, 20_000);
      } finally {
        await live.close();
        await live.services.db.close();
      }
    });

    it('delivers after the gateway is killed (SIGKILL) mid-delivery and restarted', { timeout: 300_000 }, async () => {
      const test = await openTestDb('postgres');
      const hold = await new Receiver().start();
      hold.answers = ['hang', 200];
      const port = await freePort();
      const env = {
        DATABASE_URL: test.url!,
        KARIBCHE_DATA_DIR: test.dataDir,
        PORT: String(port),
        KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN,
        LOG_LEVEL: 'warn',
        KARIBCHE_CALLBACK_TIMEOUT_MS: '3000',
        KARIBCHE_CALLBACK_POLL_MS: '200',
        KARIBCHE_WORKERS: '1',
      };
      const startProc = async () => (await startGatewayProcess(env)).child;
      let child = await startProc();
      try {
        const base = `http://127.0.0.1:${port}`;
        const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
        const { credentials: c } = await (
          await fetch(`${base}/admin/v1/merchants`, {
            method: 'POST',
            headers: admin,
            body: JSON.stringify({ name: 'K', callbackUrlPrefixes: ['http://127.0.0.1:*'] }),
          })
        ).json();
        const tok = (
          await (
            await fetch(`${base}/v1/gateway/access-token`, {
              method: 'POST',
              headers: { apikey: c.apiKey, 'content-type': 'application/json' },
              body: JSON.stringify({ client_id: c.clientId, client_secret: c.clientSecret }),
            })
          ).json()
        ).access_token;
        const p = await (
          await fetch(`${base}/v1/gateway/payments`, {
            method: 'POST',
            headers: { apikey: c.apiKey, authorization: `Bearer ${tok}`, 'content-type': 'application/json' },
            body: JSON.stringify(basicPayment({ callbackUrl: hold.url })),
          })
        ).json();
        await fetch(`${base}/sandbox/v1/payments/${p.payId}/simulate`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ card: '4111111111111111' }),
        });
        await hold.waitFor(1, 30_000); // the gateway is now waiting for the merchant's answer
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
        child = await startProc();
        await hold.waitFor(2, 60_000); // after the dead process's lease (timeout + 5 s)
        assert.equal(hold.received[1]!.headers['x-callback-id'], hold.received[0]!.headers['x-callback-id']);
        assert.equal(hold.received[1]!.body, JSON.stringify({ PaymentId: p.payId }));
        const { rows } = await test.db.query<{ status: string; attempts: number }>(
          'SELECT status, attempts FROM callback_deliveries WHERE pay_id = $1',
          [p.payId],
        );
        const end = Date.now() + 30_000;
        let row = rows[0]!;
        while (row.status !== 'delivered' && Date.now() < end) {
          await new Promise((r) => setTimeout(r, 50));
          row = (
            await test.db.query<{ status: string; attempts: number }>(
              'SELECT status, attempts FROM callback_deliveries WHERE pay_id = $1',
              [p.payId],
            )
          ).rows[0]!;
        }
        assert.equal(row.status, 'delivered');
        assert.equal(row.attempts, 2);
      } finally {
        child.kill('SIGKILL');
        await hold.stop();
        await test.drop();
      }
    });
  });
});
