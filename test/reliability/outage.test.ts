// Database outage: PostgreSQL stops for 10 s while the gateway is under load. Meanwhile /readyz says
// not ready and requests get a prompt 503 problem JSON (no hang, no crash); when the database
// returns the gateway recovers by itself, and nothing acknowledged is lost. PGlite is embedded in
// the gateway's own process, so it has no outage of its own: this suite is PostgreSQL only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freePort } from '../../src/testing/browser.ts';
import { describePostgres } from '../../src/testing/postgres-only.ts';
import { ADMIN_TOKEN } from '../../src/testing/harness.ts';
import { PrivatePostgres } from '../../src/testing/private-postgres.ts';
import { startGatewayProcess } from '../../src/testing/process.ts';
import { Receiver } from '../../src/testing/receiver.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { checkExactlyOnce, waitForCallbacks, waitUntilSettled } from './checks.ts';
import { MixedLoad, createMerchantOver, suiteGatewayEnv } from './load.ts';

const OUTAGE_MS = 10_000;

interface Probe {
  at: number;
  path: string;
  status: number | null;
  ms: number;
  problem: boolean;
}

async function probe(base: string, path: string, init: RequestInit = {}): Promise<Probe> {
  const at = Date.now();
  try {
    // No answer within 30 s is a hang (the gateway's own database timeouts are 5 s).
    const res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
    await res.text();
    return {
      at,
      path,
      status: res.status,
      ms: Date.now() - at,
      problem: !!res.headers.get('content-type')?.startsWith('application/problem+json'),
    };
  } catch {
    return { at, path, status: null, ms: Date.now() - at, problem: false };
  }
}

describePostgres('database outage [postgres]', () => {
  describe('database outage [postgres]', () => {
    it(`answers 503 while PostgreSQL is down for ${OUTAGE_MS / 1000} s and recovers by itself`, {
      timeout: 400_000,
    }, async () => {
      const server = await PrivatePostgres.create();
      const rx = await new Receiver().start();
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const proc = await startGatewayProcess(suiteGatewayEnv(server.url, server.dir, port, ADMIN_TOKEN));
      let load: MixedLoad | null = null;
      try {
        const merchant = await createMerchantOver(base, ADMIN_TOKEN);
        load = new MixedLoad([base], ADMIN_TOKEN, merchant, rx.url, 30_000);
        const running = load.run(4);
        // The load is under way before the database goes: some creates acknowledged.
        await waitUntil('10 creates acknowledged before the outage', () => load!.record.creates.length >= 10, 60_000);
        const beforeOutage = load.record.creates.length;

        const token = await (async () => {
          // A token fetched before the outage: the merchant's own requests, besides the load.
          const res = await fetch(`${base}/v1/gateway/access-token`, {
            method: 'POST',
            headers: { apikey: merchant.apiKey, 'content-type': 'application/json' },
            body: JSON.stringify({ client_id: merchant.clientId, client_secret: merchant.clientSecret }),
          });
          return res.status === 200 ? ((await res.json()) as { access_token: string }).access_token : null;
        })();
        await server.stop();
        const down = Date.now();
        const probes: Probe[] = [];
        const merchantHeaders = {
          apikey: merchant.apiKey,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        };
        // The outage lasts OUTAGE_MS and at least until 7 rounds of probes were answered after the
        // gateway noticed (its first readyz 503), however slowly a loaded machine answers them.
        const noticed = () => probes.findIndex((p) => p.path === '/readyz' && p.status === 503);
        while (Date.now() - down < OUTAGE_MS || noticed() < 0 || probes.length - noticed() < 21) {
          // A gateway that died, or never notices, ends the wait with its output (the catch below)
          // rather than probing a closed port until the test's timeout.
          if (proc.child.exitCode !== null || proc.child.signalCode !== null)
            throw new Error(
              `the gateway exited during the outage (code ${proc.child.exitCode}, signal ${proc.child.signalCode})`,
            );
          if (Date.now() - down > 120_000)
            throw new Error(
              `the gateway did not notice the outage in 120 s: ${probes.length} probes, the last ${JSON.stringify(probes.slice(-3))}`,
            );
          probes.push(await probe(base, '/readyz'));
          probes.push(
            await probe(base, '/v1/gateway/payments', {
              method: 'POST',
              headers: merchantHeaders,
              body: JSON.stringify({ amount: { currency: 'GEL', total: 1 }, returnurl: 'https://shop.example/r' }),
            }),
          );
          probes.push(
            await probe(base, `/admin/v1/merchants/${merchant.clientId}`, {
              headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
            }),
          );
          await new Promise((r) => setTimeout(r, 250));
        }
        assert.equal(proc.child.exitCode, null, 'the gateway is still running');
        await server.start();
        const up = Date.now();
        let readyAfter = -1;
        while (Date.now() - up < 60_000) {
          const p = await probe(base, '/readyz');
          if (p.status === 200) {
            readyAfter = Date.now() - up;
            break;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(readyAfter >= 0, 'ready again within 60 s of the database returning');
        // The load recovers by itself: 20 more creates acknowledged (the deadline only turns a
        // gateway that never recovers into a failure).
        const creates = load.record.creates.length;
        await waitUntil(
          '20 creates acknowledged after recovery',
          () => load!.record.creates.length >= creates + 20,
          60_000,
        ).catch((err) => {
          throw new Error(`${err.message}: only ${load!.record.creates.length - creates} creates after recovery`);
        });
        load.stop();
        await running;

        // Every request sent while the database was down was answered while it was still down (no
        // request hangs until it returns); once the gateway noticed (its first readyz 503), readyz
        // answers 503 and API requests a 503 problem JSON.
        for (const p of probes) assert.notEqual(p.status, null, `${p.path} got no answer during the outage`);
        const settled = probes.slice(noticed());
        assert.ok(settled.length >= 21, `${settled.length} probes`);
        for (const p of settled) {
          assert.equal(p.status, 503, `${p.path} answered ${p.status} during the outage`);
          if (p.path !== '/readyz') assert.ok(p.problem, `${p.path} 503 is problem JSON`);
        }
        const slowest = Math.max(...probes.map((p) => p.ms));
        assert.deepEqual(load.record.anomalies, []);

        const db = await openPostgres(server.url, { poolSize: 2 });
        try {
          await waitUntilSettled(db, 60_000);
          const callbacks = await waitForCallbacks(db, rx, 60_000);
          await checkExactlyOnce(db, load.record);
          // The keys of requests that failed during the outage were released when it ended (else
          // every retry with them would be answered 409 until their claims timed out, 60 s later).
          const { rows: held } = await db.query(
            `SELECT key, recovery_point, pay_id, created_at, locked_until FROM idempotency_keys WHERE recovery_point <> 'finished'`,
          );
          assert.deepEqual(
            held,
            [],
            `idempotency keys still claimed after the outage (down ${new Date(down).toISOString()}, up ${new Date(up).toISOString()})`,
          );
          console.log(
            `[outage] database down ${up - down} ms under load; ${probes.length} probes during it (all 503 from probe ${noticed() + 1} on, slowest ${slowest} ms); ready ${readyAfter} ms after the database returned; load ${load.record.requests} requests ${JSON.stringify(load.record.outcomes)}, creates acknowledged ${beforeOutage} before / ${load.record.creates.length} in all; ${load.record.refunds.length} refunds; ${callbacks} final events all delivered`,
          );
        } finally {
          await db.close();
        }
      } catch (err) {
        console.log(proc.output().slice(-4_000));
        throw err;
      } finally {
        load?.stop();
        await proc.kill('SIGKILL');
        await rx.stop();
        await server.destroy();
      }
    });
  });
});
