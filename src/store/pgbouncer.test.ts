// The gateway behind PgBouncer in transaction pooling mode (Debian's pgbouncer 1.18, started here
// on a free port in front of the test PostgreSQL): statements unnamed, LISTEN on the direct
// session connection, migrations, payments, refunds, completions, callbacks and clock changes.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Clock } from '../clock.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { createGateway, type Gateway } from '../gateway.ts';
import { createLogger } from '../logger.ts';
import { freePort } from '../testing/browser.ts';
import { BACKENDS, SERVER_URL, openTestDb, type TestDb } from '../testing/databases.ts';
import { ADMIN_TOKEN, EVERYTHING, accessToken, basicPayment, type Credentials } from '../testing/harness.ts';
import { pgbouncerBinary, startPgbouncer, type Pgbouncer } from '../testing/pgbouncer.ts';
import { startGatewayProcess } from '../testing/process.ts';
import { Receiver } from '../testing/receiver.ts';
import { waitUntil } from '../testing/wait.ts';
import { listMigrations } from './migrate.ts';
import { openPostgres } from './postgres.ts';

/** Neither sweeps nor polls within a test: what arrives in time arrived through a notification. */
const NO_POLLING = { KARIBCHE_CALLBACK_POLL_MS: '60000', KARIBCHE_SWEEP_INTERVAL_MS: '3600000' };
/** Far below the 60 s poll, far above a notification's few milliseconds. */
const NOTIFIED_WITHIN_MS = 30_000;

/** Waits for a condition a notification brings about, well within the poll interval it must beat. */
const until = (what: string, holds: () => boolean | Promise<boolean>) => waitUntil(what, holds, NOTIFIED_WITHIN_MS, 20);

const skipReason = !BACKENDS.includes('postgres')
  ? null
  : pgbouncerBinary()
    ? null
    : 'pgbouncer is not installed (apt-get install pgbouncer; .ci/run installs it)';
if (skipReason) console.log(`[pgbouncer] SKIPPED: ${skipReason}`);
if (!BACKENDS.includes('postgres')) console.log('[pgbouncer] not run: PostgreSQL is not among KARIBCHE_TEST_BACKENDS');

if (BACKENDS.includes('postgres')) {
  describe('behind PgBouncer in transaction pooling mode', { skip: skipReason ?? false }, () => {
    let bouncer: Pgbouncer;
    let rx: Receiver;
    before(async () => {
      bouncer = await startPgbouncer(SERVER_URL);
      rx = await new Receiver().start();
    });
    after(async () => {
      await rx?.stop();
      await bouncer?.stop();
    });

    it('named prepared statements break there and unnamed ones pass: the gateway detects the pooler', async () => {
      const test = await openTestDb('postgres');
      const through = bouncer.urlFor(test.url!);
      // 10 client connections over PgBouncer's 8 server connections: each client prepares the
      // statement once, so at least two Parse messages meet a server connection that has it.
      const named = await openPostgres(through, { poolSize: 10, statements: 'named', listenUrl: test.url! });
      const auto = await openPostgres(through, { poolSize: 10, listenUrl: test.url! });
      try {
        const run = async (db: typeof named) => {
          const errors: string[] = [];
          await Promise.all(
            Array.from({ length: 100 }, async (_, i) => {
              try {
                const { rows } = await db.query<{ n: number }>('SELECT $1::int + 1 AS n', [i]);
                assert.equal(rows[0]!.n, i + 1);
              } catch (e) {
                errors.push((e as Error).message);
              }
            }),
          );
          return errors;
        };
        const namedErrors = await run(named);
        assert.ok(namedErrors.length >= 2, `named statements through the pooler: ${namedErrors.length} errors`);
        assert.match(namedErrors[0]!, /prepared statement/);
        assert.equal(auto.pooled, true, 'pooler detected');
        assert.deepEqual(await run(auto), []);
        assert.equal(test.db.pooled, false, 'a direct connection is not a pooler');
      } finally {
        await named.close();
        await auto.close();
        await test.drop();
      }
    });

    describe('two gateways in process, each with its own pool through PgBouncer', () => {
      let test: TestDb;
      let a: Gateway;
      let b: Gateway;
      let m: { clientId: string; headers: Record<string, string> };
      const env = () => ({
        KARIBCHE_MODE: 'sandbox',
        KARIBCHE_DATA_DIR: test.dataDir,
        KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN,
        LOG_LEVEL: 'silent',
        DATABASE_URL: bouncer.urlFor(test.url!),
        KARIBCHE_DATABASE_DIRECT_URL: test.url!,
        KARIBCHE_DB_POOL: '6',
        ...NO_POLLING,
      });
      const start = (background: boolean, over: Record<string, string> = {}) =>
        createGateway(loadConfig({ ...env(), ...over }), {
          clock: new Clock(),
          background,
          log: createLogger('silent'),
        });
      const admin = (g: Gateway, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
        g.app.inject({ method, url, payload: payload as object, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const merchant = (g: Gateway, method: 'GET' | 'POST', url: string, payload?: unknown) =>
        g.app.inject({ method, url, payload: payload as object, headers: m.headers });

      before(async () => {
        test = await openTestDb('postgres');
        // Both start at once on an empty database: the migrations run through the pooler under
        // their transaction-scoped advisory lock, once.
        // b's dispatcher polls every 500 ms: a commits final statuses but runs no dispatcher, and a
        // process's commit wakes only its own (no server NOTIFY for callbacks: issue 25).
        [a, b] = await Promise.all([start(false), start(true, { KARIBCHE_CALLBACK_POLL_MS: '500' })]);
        const created = await admin(a, 'POST', '/admin/v1/merchants', { name: 'Pooled', ...EVERYTHING });
        assert.equal(created.statusCode, 201, created.body);
        const c = created.json().credentials as Credentials;
        m = {
          clientId: c.clientId,
          headers: {
            apikey: c.apiKey,
            authorization: `Bearer ${await accessToken(b.app, c)}`,
            'content-type': 'application/json',
          },
        };
      });
      after(async () => {
        await a?.close();
        await b?.close();
        await test?.drop();
      });

      it('applied every migration once at start and uses unnamed statements', async () => {
        const { rows } = await test.db.query<{ version: number }>(
          'SELECT version FROM schema_migrations ORDER BY version',
        );
        assert.deepEqual(
          rows.map((r) => r.version),
          listMigrations().map((x) => x.version),
        );
        assert.equal(a.services.db.pooled, true);
        assert.equal(b.services.db.pooled, true);
      });

      it('refuses to start without a direct connection for LISTEN, saying which setting is missing', async () => {
        const { KARIBCHE_DATABASE_DIRECT_URL: _direct, ...withoutDirect } = env();
        await assert.rejects(
          createGateway(loadConfig(withoutDirect), {
            clock: new Clock(),
            background: false,
            log: createLogger('silent'),
          }),
          (e: unknown) => e instanceof ConfigError && /KARIBCHE_DATABASE_DIRECT_URL/.test(e.message),
        );
      });

      it('creates 40 payments at once, pays, refunds and completes them; the other process delivers every callback, found at its poll', async () => {
        const before = rx.received.length;
        const created = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            merchant(b, 'POST', '/v1/gateway/payments', basicPayment({ callbackUrl: rx.url, preAuth: i % 2 === 1 })),
          ),
        );
        for (const r of created) assert.equal(r.statusCode, 200, r.body);
        const ids = created.map((r) => r.json().payId as string);
        // Paid through gateway a, which runs no dispatcher: b's dispatcher finds them at its poll.
        await Promise.all(
          ids.map(async (id) =>
            assert.equal(
              (await admin(a, 'POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' })).statusCode,
              200,
            ),
          ),
        );
        await until('40 payment callbacks', () => rx.received.length >= before + 40);
        const [sale, preAuth] = [ids.filter((_, i) => i % 2 === 0), ids.filter((_, i) => i % 2 === 1)];
        const refunds = await Promise.all(
          sale.map((id) => merchant(a, 'POST', `/v1/gateway/payments/${id}/cancel`, {})),
        );
        for (const r of refunds) assert.equal(r.json().status, 'Returned', r.body);
        const completions = await Promise.all(
          preAuth.map((id) => merchant(b, 'POST', `/v1/gateway/payments/${id}/completion`, { amount: 10 })),
        );
        for (const r of completions) assert.equal(r.json().status, 'Succeeded', r.body);
        await until('the refund and completion callbacks', () => rx.received.length >= before + 80);
        // One callback for the payment and one for the refund or completion of each.
        const perPayment = new Map<string, number>();
        for (const r of rx.received.slice(before)) {
          const id = (JSON.parse(r.body) as { PaymentId: string }).PaymentId;
          perPayment.set(id, (perPayment.get(id) ?? 0) + 1);
        }
        for (const id of ids) assert.equal(perPayment.get(id), 2, id);
        for (const id of ids) assert.equal((await merchant(a, 'GET', `/v1/gateway/payments/${id}`)).statusCode, 200);
      });

      it('a clock change on one process reaches the other by notification', async () => {
        const res = await admin(a, 'POST', '/sandbox/v1/clock', { advanceSeconds: 3600 });
        assert.equal(res.statusCode, 200, res.body);
        const offset = res.json().offsetSeconds * 1000;
        await until('the clock change at b', () => b.services.clock.offset === offset);
      });
    });

    it('a gateway process with KARIBCHE_WORKERS=2 through PgBouncer: migrations at start, payments, refunds, callbacks, clock', {
      timeout: 120_000,
    }, async () => {
      const test = await openTestDb('postgres');
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const proc = await startGatewayProcess(
        {
          DATABASE_URL: bouncer.urlFor(test.url!),
          KARIBCHE_DATABASE_DIRECT_URL: test.url!,
          KARIBCHE_WORKERS: '2',
          KARIBCHE_DATA_DIR: test.dataDir,
          PORT: String(port),
          KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN,
          LOG_LEVEL: 'warn',
          ...NO_POLLING,
        },
        { timeoutMs: 60_000 },
      );
      // A new connection per request: node:cluster hands each one to the next worker in turn.
      const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
        new Promise<{ status: number; json: any }>((resolve, reject) => {
          const payload = body === undefined ? undefined : JSON.stringify(body);
          const req = http.request(
            `${base}${path}`,
            { method, agent: false, headers: payload ? { ...headers, 'content-type': 'application/json' } : headers },
            (res) => {
              let text = '';
              res.on('data', (d) => (text += d));
              res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : null }));
            },
          );
          req.on('error', reject);
          req.end(payload);
        });
      try {
        const pids = new Set<number>();
        await until(
          'both workers answering',
          async () => (pids.add((await call('GET', '/healthz', {})).json.pid), pids.size === 2),
        );
        const adminH = { authorization: `Bearer ${ADMIN_TOKEN}` };
        const created = await call('POST', '/admin/v1/merchants', adminH, { name: 'Pooled process', ...EVERYTHING });
        assert.equal(created.status, 201);
        const c = created.json.credentials as Credentials;
        const tok = await call(
          'POST',
          '/v1/gateway/access-token',
          { apikey: c.apiKey },
          { client_id: c.clientId, client_secret: c.clientSecret },
        );
        const h = { apikey: c.apiKey, authorization: `Bearer ${tok.json.access_token}` };
        const before = rx.received.length;
        const ids: string[] = [];
        for (let i = 0; i < 10; i++) {
          const p = await call('POST', '/v1/gateway/payments', h, basicPayment({ callbackUrl: rx.url }));
          assert.equal(p.status, 200, JSON.stringify(p.json));
          ids.push(p.json.payId);
          assert.equal(
            (await call('POST', `/sandbox/v1/payments/${p.json.payId}/simulate`, adminH, { card: '4111111111111111' }))
              .status,
            200,
          );
        }
        for (const id of ids)
          assert.equal((await call('POST', `/v1/gateway/payments/${id}/cancel`, h, {})).json.status, 'Returned');
        await until('20 callbacks', () => rx.received.length >= before + 20);

        // The clock moves on one worker; creations on both (connections alternate) use the new time.
        const advanced = await call('POST', '/sandbox/v1/clock', adminH, { advanceSeconds: 3600 });
        assert.equal(advanced.status, 200);
        const moved = Date.parse(advanced.json.now);
        await until('both workers on the new clock', async () => {
          const times = [];
          for (let i = 0; i < 4; i++) {
            const p = await call('POST', '/v1/gateway/payments', h, basicPayment());
            times.push(
              Date.parse(
                p.json.payId ? (await call('GET', `/v1/gateway/payments/${p.json.payId}`, h)).json.createdAt : '0',
              ),
            );
          }
          return times.every((t) => t >= moved);
        });
        const { rows } = await test.db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
        assert.equal(rows[0]!.n, listMigrations().length);
        proc.child.kill('SIGTERM');
        assert.equal(await proc.exited, 0, proc.output());
      } catch (err) {
        console.log(proc.output().slice(-4_000), bouncer.log().slice(-2_000));
        throw err;
      } finally {
        await proc.kill('SIGKILL');
        await test.drop();
      }
    });
  });
}
