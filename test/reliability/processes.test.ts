// Three gateway processes on one PostgreSQL under load, every request going to the next process:
// the same payment paid through all three at once, refunded through all three at once, a clock jump
// that makes all three sweepers expire the same payments, and all three dispatchers delivering.
// No payment changes status twice for one event, no callback is sent twice, each expiry happens once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freePort } from '../../src/testing/browser.ts';
import { openTestDb } from '../../src/testing/databases.ts';
import { describePostgres } from '../../src/testing/postgres-only.ts';
import { ADMIN_TOKEN } from '../../src/testing/harness.ts';
import { startGatewayProcess, type GatewayProcess } from '../../src/testing/process.ts';
import { Receiver } from '../../src/testing/receiver.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import { checkEventSequences, checkExactlyOnce, waitForCallbacks, waitUntilSettled } from './checks.ts';
import { MixedLoad, createMerchantOver, suiteGatewayEnv } from './load.ts';

const PROCESSES = 3;
const RACED = 40;

describePostgres('several gateway processes under load [postgres]', () => {
  describe('three gateway processes on one database [postgres]', () => {
    it('change each payment once per event, send each callback once and expire each payment once', {
      timeout: 400_000,
    }, async () => {
      const test = await openTestDb('postgres');
      const rx = await new Receiver().start();
      rx.delayMs = 20; // a slow merchant widens the window in which two dispatchers could overlap
      const procs: GatewayProcess[] = [];
      let load: MixedLoad | null = null;
      try {
        // Started together: migrations and bootstrap race too (both run under advisory locks).
        const ports = await Promise.all(Array.from({ length: PROCESSES }, () => freePort()));
        procs.push(
          ...(await Promise.all(
            ports.map((port) => startGatewayProcess(suiteGatewayEnv(test.url!, test.dataDir, port, ADMIN_TOKEN))),
          )),
        );
        const bases = ports.map((p) => `http://127.0.0.1:${p}`);
        const merchant = await createMerchantOver(bases[0]!, ADMIN_TOKEN);
        load = new MixedLoad(bases, ADMIN_TOKEN, merchant, rx.url);
        const running = load.run(6);
        const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

        // The same payment paid through all three processes at once: exactly one attempt runs.
        let paidOnce = 0;
        let refundedOnce = 0;
        for (let i = 0; i < RACED; i++) {
          const res = await load.send(
            'POST',
            '/v1/gateway/access-token',
            { client_id: merchant.clientId, client_secret: merchant.clientSecret },
            { apikey: merchant.apiKey },
          );
          const auth = {
            apikey: merchant.apiKey,
            authorization: `Bearer ${(res!.body as { access_token: string }).access_token}`,
          };
          const created = await load.send(
            'POST',
            '/v1/gateway/payments',
            { amount: { currency: 'GEL', total: 5 }, returnurl: 'https://shop.example/r', callbackUrl: rx.url },
            auth,
          );
          assert.equal(created?.status, 200);
          const payId: string = (created!.body as { payId: string }).payId;
          const pays: Response[] = await Promise.all(
            bases.map((b) =>
              fetch(`${b}/sandbox/v1/payments/${payId}/simulate`, {
                method: 'POST',
                headers: { ...admin, 'content-type': 'application/json' },
                body: JSON.stringify({ card: '4111111111111111' }),
              }),
            ),
          );
          const ok = pays.filter((r) => r.status === 200);
          if (ok.length === 1) paidOnce++;
          for (const r of pays) if (r.status !== 200) assert.equal(r.status, 400, `simulate answered ${r.status}`);
          // …and refunded in full through all three at once, each with its own key: one refund.
          const refunds = await Promise.all(
            bases.map((b, k) =>
              fetch(`${b}/v1/gateway/payments/${payId}/cancel`, {
                method: 'POST',
                headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `race-${i}-${k}` },
                body: '{}',
              }),
            ),
          );
          if (refunds.filter((r) => r.status === 200).length === 1) refundedOnce++;
          for (const r of refunds)
            if (r.status !== 200) assert.ok([400, 409].includes(r.status), `cancel answered ${r.status}`);
        }
        assert.equal(paidOnce, RACED, 'each raced payment paid by exactly one of three simultaneous attempts');
        assert.equal(refundedOnce, RACED, 'each raced payment refunded by exactly one of three simultaneous refunds');

        // A clock jump past every open payment's expiry asked of all three processes at once: each
        // moves the shared clock and sweeps at once, so three sweepers race for the same due payments
        // (their background sweepers too), under load.
        const jumps = await Promise.all(
          bases.map((b) =>
            fetch(`${b}/sandbox/v1/clock`, {
              method: 'POST',
              headers: { ...admin, 'content-type': 'application/json' },
              body: JSON.stringify({ advanceSeconds: 900 }),
            }),
          ),
        );
        for (const jump of jumps) assert.equal(jump.status, 200);
        load.stop();
        await running;

        const db = test.db;
        await waitUntilSettled(db, 60_000);
        // Payments created during the jump's propagation may still be open: jump once more.
        await fetch(`${bases[2]}/sandbox/v1/clock`, {
          method: 'POST',
          headers: { ...admin, 'content-type': 'application/json' },
          body: JSON.stringify({ advanceSeconds: 900 }),
        });
        await waitUntil(
          'no open payment left after the second clock jump',
          async () =>
            (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE status = 'Created'`)).rows[0]!
              .n === 0,
          60_000,
          200,
        );
        const finals = await waitForCallbacks(db, rx, 60_000);
        await checkExactlyOnce(db, load.record);
        const withEvents = await checkEventSequences(db);

        // One event per change: no payment reached a final status twice in a row, none expired twice.
        const { rows: twice } = await db.query<{ pay_id: string; status: string; n: number }>(
          `SELECT pay_id, status, count(*)::int AS n FROM payment_events WHERE status IN ('Expired', 'Succeeded', 'Returned', 'Failed') GROUP BY pay_id, status HAVING count(*) > 1`,
        );
        assert.deepEqual(twice, []);
        const { rows: expired } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM payment_events WHERE status = 'Expired'`,
        );
        assert.ok(expired[0]!.n >= 20, `only ${expired[0]!.n} payments expired`);

        // Each callback sent once (the receiver always answers 200), each attempt number once.
        const ids = rx.received.map((r) => r.headers['x-callback-id']);
        assert.equal(new Set(ids).size, ids.length, 'a callback was sent twice');
        const { rows: dupAttempts } = await db.query(
          `SELECT event_id, attempt FROM callback_attempts GROUP BY event_id, attempt HAVING count(*) > 1`,
        );
        assert.deepEqual(dupAttempts, []);
        const { rows: byProcess } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM callback_attempts`);
        assert.equal(byProcess[0]!.n, ids.length);
        assert.deepEqual(load.record.anomalies, []);
        console.log(
          `[3 processes] ${load.record.requests} load requests ${JSON.stringify(load.record.outcomes)} + ${RACED} payments each paid and refunded through 3 processes at once (${RACED * 6} racing requests): each paid once, refunded once; ${withEvents} payments with events, ${expired[0]!.n} expired once each; ${finals} final events, ${ids.length} callbacks, none twice`,
        );
      } finally {
        load?.stop();
        await Promise.all(procs.map((p) => p.kill('SIGKILL')));
        await rx.stop();
        await test.drop();
      }
    });
  });
});
