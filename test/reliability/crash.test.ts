// Crash suite: the gateway process is SIGKILLed under mixed load (creates, simulated payments,
// refunds) and restarted. Afterwards every create and refund a client was told about exists exactly
// once, the reconciler leaves nothing in a processing status, every final status has a delivered
// callback, and no card number is in any table or log line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openPglite } from '../../src/store/pglite.ts';
import { freePort } from '../../src/testing/browser.ts';
import { BACKENDS, openTestDb, seedPgliteDataDir, type Backend } from '../../src/testing/databases.ts';
import { ADMIN_TOKEN } from '../../src/testing/harness.ts';
import { startGatewayProcess, type GatewayProcess } from '../../src/testing/process.ts';
import { Receiver } from '../../src/testing/receiver.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import {
  checkEventSequences,
  checkExactlyOnce,
  checkNoCardData,
  waitForCallbacks,
  waitUntilSettled,
} from './checks.ts';
import { MixedLoad, createMerchantOver, suiteGatewayEnv, type MerchantCredentials } from './load.ts';

const KILLS: Record<Backend, number> = { postgres: 5, pglite: 1 };
// Each life of the gateway serves this many more acknowledged creates and refunds before it is
// killed (a restart under a busy CI takes a while; every life must see real load).
const CREATES_PER_LIFE = 20;
const REFUNDS_PER_LIFE = 5;

/** Waits until this life of the gateway has served its share of the load. */
async function lived(load: MixedLoad): Promise<void> {
  const { creates, refunds } = { creates: load.record.creates.length, refunds: load.record.refunds.length };
  await waitUntil(
    `${CREATES_PER_LIFE} creates and ${REFUNDS_PER_LIFE} refunds acknowledged in this life`,
    () =>
      load.record.creates.length >= creates + CREATES_PER_LIFE &&
      load.record.refunds.length >= refunds + REFUNDS_PER_LIFE,
    120_000,
    100,
  );
}

/**
 * Waits until the gateway says, through its own API, that nothing is left to do: no payment of the
 * merchant in a processing status and no callback pending (the only way to look at a PGlite the
 * gateway process holds open).
 */
async function quietOverHttp(base: string, merchant: MerchantCredentials): Promise<void> {
  const token = async () => {
    const res = await fetch(`${base}/v1/gateway/access-token`, {
      method: 'POST',
      headers: { apikey: merchant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: merchant.clientId, client_secret: merchant.clientSecret }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const headers = { apikey: merchant.apiKey, authorization: `Bearer ${await token()}` };
  const processing = async (status: string) => {
    const res = await fetch(`${base}/v1/gateway/payments?status=${status}&limit=1`, { headers });
    if (res.status !== 200) throw new Error(`payment search answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { items: unknown[] }).items.length > 0;
  };
  const pending = async () => /^karibche_callbacks_pending [1-9]/m.test(await (await fetch(`${base}/metrics`)).text());
  await waitUntil(
    'nothing processing and no callback pending',
    async () =>
      !(await processing('Processing')) &&
      !(await processing('CancelPaymentProcessing')) &&
      !(await processing('PaymentCompletionProcessing')) &&
      !(await pending()),
    120_000,
    250,
  );
}

for (const backend of BACKENDS) {
  describe(`crash suite [${backend}]`, () => {
    it(`keeps every acknowledged create and refund exactly once across ${KILLS[backend]} SIGKILLs under load`, {
      timeout: 900_000,
    }, async () => {
      const test = await openTestDb(backend);
      let db = test.db;
      if (backend === 'pglite') {
        // The gateway process owns the PGlite data dir; it starts from a copy of the template.
        await test.db.close();
        await seedPgliteDataDir(test.dataDir);
      }
      const rx = await new Receiver().start();
      const port = await freePort();
      // Debug logs: the card-data scan reads every line the process wrote.
      const env = suiteGatewayEnv(test.url ?? '', test.dataDir, port, ADMIN_TOKEN, {
        KARIBCHE_CALLBACK_TIMEOUT_MS: '2000',
        LOG_LEVEL: 'debug',
      });
      const base = `http://127.0.0.1:${port}`;
      let logs = '';
      let proc: GatewayProcess = await startGatewayProcess(env);
      try {
        const merchant = await createMerchantOver(base, ADMIN_TOKEN);
        const load = new MixedLoad([base], ADMIN_TOKEN, merchant, rx.url);
        const running = load.run(8);
        for (let k = 0; k < KILLS[backend]; k++) {
          await lived(load);
          await proc.kill('SIGKILL');
          logs += proc.output();
          proc = await startGatewayProcess(env);
        }
        await lived(load);
        load.stop();
        await running;

        if (backend === 'pglite') {
          // Only the gateway can open its PGlite: let it work, stop it, look; start it again while
          // something is still to be settled or delivered.
          for (let round = 0; ; round++) {
            await quietOverHttp(base, merchant);
            await proc.kill('SIGTERM');
            logs += proc.output();
            db = await openPglite(path.join(test.dataDir, 'pglite'));
            const done = await Promise.all([waitUntilSettled(db, 0), waitForCallbacks(db, rx, 0)]).then(
              () => true,
              () => false,
            );
            if (done || round === 3) break;
            await db.close();
            proc = await startGatewayProcess(env);
          }
        }
        await waitUntilSettled(db, 60_000);
        const callbacks = await waitForCallbacks(db, rx, 60_000);
        await checkExactlyOnce(db, load.record);
        const paymentsWithEvents = await checkEventSequences(db);
        if (backend === 'postgres') {
          await proc.kill('SIGTERM');
          logs += proc.output();
        }
        const scanned = await checkNoCardData(db, logs);

        const r = load.record;
        assert.deepEqual(r.anomalies, []);
        assert.ok(
          r.creates.length >= CREATES_PER_LIFE * (KILLS[backend] + 1),
          `only ${r.creates.length} acknowledged creates`,
        );
        assert.ok(
          r.refunds.length >= REFUNDS_PER_LIFE * (KILLS[backend] + 1),
          `only ${r.refunds.length} acknowledged refunds`,
        );
        console.log(
          `[crash ${backend}] ${KILLS[backend]} SIGKILLs; ${r.requests} requests (${JSON.stringify(r.outcomes)}); acknowledged creates ${r.creates.length}, unanswered ${r.unansweredCreates.length}; acknowledged refunds ${r.refunds.length}; ${paymentsWithEvents} payments with events; ${callbacks} final events, all delivered (${rx.received.length} callback requests); card scan: ${scanned.rows} rows, ${scanned.logBytes} log bytes`,
        );
      } finally {
        await proc.kill('SIGKILL');
        await rx.stop();
        if (backend === 'pglite') {
          if (db !== test.db) await db.close().catch(() => {});
          fs.rmSync(test.dataDir, { recursive: true, force: true });
        } else {
          await test.drop();
        }
      }
    });
  });
}
