// In-process gateway for HTTP tests (fastify.inject), on a test database of either backend, with
// helpers that speak the merchant and operator APIs the way a client would.
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Clock } from '../clock.ts';
import { loadConfig } from '../config.ts';
import { createGateway, type Gateway } from '../gateway.ts';
import { createLogger } from '../logger.ts';
import { openPostgres } from '../store/postgres.ts';
import { openTestDb, type Backend, type TestDb } from './databases.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** A stand-in for an operator's acquirer connector (src/testing/fixtures/test-acquirer.mjs): production tests load it. */
export const TEST_ACQUIRER_MODULE = fileURLToPath(new URL('./fixtures/test-acquirer.mjs', import.meta.url));

export interface TestGateway {
  backend: Backend;
  gw: Gateway;
  app: FastifyInstance;
  clock: Clock;
  testDb: TestDb;
  admin(method: InjectOptions['method'], url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  /** Stops the gateway and starts a new one on the same database, as a process restart would. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startTestGateway(
  backend: Backend,
  env: Record<string, string> = {},
  opts: {
    background?: boolean;
    logStream?: { write(line: string): void };
    /** Settings every session of the test database starts with (e.g. a planner setting). */
    dbSettings?: Record<string, string>;
  } = {},
): Promise<TestGateway> {
  // Migrated from a template: the gateway's own migrate() then finds nothing to apply.
  const testDb = await openTestDb(backend, { migrated: true, settings: opts.dbSettings });
  const config = loadConfig({
    KARIBCHE_MODE: 'sandbox',
    KARIBCHE_DATA_DIR: testDb.dataDir,
    KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN,
    KARIBCHE_PUBLIC_URL: 'http://gateway.test',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const start = async (clock: Clock) =>
    createGateway(config, {
      db: testDb.db,
      clock,
      background: opts.background ?? false,
      log: createLogger(config.logLevel, opts.logStream),
    });
  const clock = new Clock();
  const t: TestGateway = {
    backend,
    gw: await start(clock),
    get app() {
      return this.gw.app;
    },
    clock,
    testDb,
    admin: (method, url, payload) =>
      t.gw.app.inject({
        method,
        url,
        payload: payload as InjectOptions['payload'],
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }),
    async restart() {
      await t.gw.close();
      t.clock = new Clock();
      t.gw = await start(t.clock);
    },
    async close() {
      await t.gw.close();
      await testDb.drop();
    },
  };
  return t;
}

/**
 * Another gateway process on the same PostgreSQL database as `t` (its own pool, clock and caches),
 * as a second host would be. Close it with close() and then its services.db.close().
 */
export async function secondGateway(
  t: TestGateway,
  env: Record<string, string> = {},
  opts: { background?: boolean } = {},
): Promise<Gateway> {
  const config = loadConfig({
    KARIBCHE_MODE: 'sandbox',
    KARIBCHE_DATA_DIR: t.testDb.dataDir,
    KARIBCHE_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    DATABASE_URL: t.testDb.url!,
    ...env,
  });
  return createGateway(config, {
    db: await openPostgres(t.testDb.url!, { poolSize: 4 }),
    clock: new Clock(),
    background: opts.background ?? false,
    log: createLogger('silent'),
  });
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
  apiKey: string;
  callbackSecret: string;
}

export const EVERYTHING = {
  currencies: ['GEL', 'USD', 'EUR'],
  methods: [4, 5, 7, 8, 9, 14],
  splitEnrolled: true,
  saveCardEnabled: true,
  callbackUrlPrefixes: ['https://shop.example/callbacks', 'http://127.0.0.1:*'],
};

export async function createMerchant(
  t: TestGateway,
  settings: Record<string, unknown> = {},
): Promise<{ merchant: Record<string, unknown>; credentials: Credentials }> {
  const res = await t.admin('POST', '/admin/v1/merchants', { name: 'Test Shop', ...settings });
  if (res.statusCode !== 201) throw new Error(`merchant create failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function accessToken(app: FastifyInstance, c: Credentials): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/gateway/access-token',
    headers: { apikey: c.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `client_id=${encodeURIComponent(c.clientId)}&client_secret=${encodeURIComponent(c.clientSecret)}`,
  });
  if (res.statusCode !== 200) throw new Error(`token failed: ${res.statusCode} ${res.body}`);
  return res.json().access_token;
}

/** A merchant's API client over inject: apikey + bearer token on every call. */
export class MerchantClient {
  constructor(
    readonly app: FastifyInstance,
    readonly credentials: Credentials,
    public token: string,
  ) {}

  static async create(t: TestGateway, settings: Record<string, unknown> = EVERYTHING): Promise<MerchantClient> {
    const { credentials } = await createMerchant(t, settings);
    return new MerchantClient(t.app, credentials, await accessToken(t.app, credentials));
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { apikey: this.credentials.apiKey, authorization: `Bearer ${this.token}`, ...extra };
  }

  post(url: string, payload: unknown, headers: Record<string, string> = {}) {
    return this.app.inject({
      method: 'POST',
      url,
      payload: payload as InjectOptions['payload'],
      headers: this.headers({ 'content-type': 'application/json', ...headers }),
    });
  }

  get(url: string, headers: Record<string, string> = {}) {
    return this.app.inject({ method: 'GET', url, headers: this.headers(headers) });
  }

  createPayment(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return this.post('/v1/gateway/payments', body, headers);
  }

  getPayment(payId: string) {
    return this.get(`/v1/gateway/payments/${payId}`);
  }
}

/**
 * Creates a payment as the merchant and pays it as the customer (sandbox simulate). The token is
 * fetched anew, since tests that move the clock by days outlive it.
 */
export async function createPaid(
  t: TestGateway,
  m: MerchantClient,
  over: Record<string, unknown> = {},
  card = '4111111111111111',
): Promise<string> {
  m.token = await accessToken(t.app, m.credentials);
  const created = await m.createPayment(basicPayment(over));
  if (created.statusCode !== 200) throw new Error(`create failed: ${created.statusCode} ${created.body}`);
  const payId = created.json().payId as string;
  const paid = await t.admin('POST', `/sandbox/v1/payments/${payId}/simulate`, { card });
  if (paid.statusCode !== 200) throw new Error(`simulate failed: ${paid.statusCode} ${paid.body}`);
  return payId;
}

/** A minimal valid create body. */
export const basicPayment = (over: Record<string, unknown> = {}) => ({
  amount: { currency: 'GEL', total: 10 },
  returnurl: 'https://shop.example/return',
  ...over,
});

/** A valid GE IBAN at the default bank code KB. */
export const SPLIT_IBAN = 'GE60KB0000000101904917';

export async function countRows(t: TestGateway, table: string): Promise<number> {
  const { rows } = await t.gw.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]!.n;
}

/**
 * A gateway on PostgreSQL and `count` more on the same database (each with its own pool, clock and
 * caches, as other hosts would be) for the tests of a describe block: started before them, closed
 * after. Read `ctx.t` and `ctx.others` inside the tests.
 */
export function useProcesses(count: number): { t: TestGateway; others: Gateway[] } {
  const ctx = { others: [] as Gateway[] } as { t: TestGateway; others: Gateway[] };
  before(async () => {
    ctx.t = await startTestGateway('postgres');
    for (let i = 0; i < count; i++) ctx.others.push(await secondGateway(ctx.t));
  });
  after(async () => {
    for (const g of ctx.others) {
      await g.close();
      await g.services.db.close();
    }
    await ctx.t.close();
  });
  return ctx;
}

/**
 * One gateway (and one merchant with everything enabled) for the tests of a describe block on a
 * backend: started before them, closed after. Read `ctx.t` and `ctx.m` inside the tests.
 */
export function useGateway(backend: Backend, env: Record<string, string> = {}): { t: TestGateway; m: MerchantClient } {
  const ctx = {} as { t: TestGateway; m: MerchantClient };
  before(async () => {
    ctx.t = await startTestGateway(backend, env);
    ctx.m = await MerchantClient.create(ctx.t);
  });
  after(() => ctx.t.close());
  return ctx;
}
