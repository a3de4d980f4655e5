import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostname } from 'node:os';
import { ConfigError, defaultWorkers, isLocalDatabase, loadConfig } from './config.ts';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    assert.equal(c.mode, 'sandbox');
    assert.equal(c.port, 8080);
    assert.equal(c.publicUrl, 'http://127.0.0.1:8080');
    assert.equal(c.maxAmountMinor, 100_000_000);
    assert.equal(c.callbackTimeoutMs, 10_000);
    assert.deepEqual(c.callbackSourceAddresses, []);
  });
  it('refuses bad values with a message naming the variable', () => {
    const bad: Record<string, string>[] = [
      { KARIBCHE_MODE: 'test' },
      { PORT: 'eighty' },
      { KARIBCHE_MAX_AMOUNT: '1.001' },
      { KARIBCHE_BANK_CODE: 'K1' },
      { KARIBCHE_TIMEZONE: 'Mars/Olympus' },
      { KARIBCHE_MODE: 'production' },
      { KARIBCHE_MODE: 'production', KARIBCHE_ADMIN_TOKEN: 'short' },
      { KARIBCHE_PATH_ALIASES: 'tp/ay' },
      { KARIBCHE_CALLBACK_LOCAL_ADDRESS: 'eth0' },
      { KARIBCHE_CALLBACK_SOURCE_ADDRESSES: '193.104.20.44,nope' },
      { KARIBCHE_WORKERS: '2' },
      { KARIBCHE_WORKERS: '0', DATABASE_URL: 'postgres://x/y' },
      { KARIBCHE_DATABASE_DIRECT_URL: 'postgres://db:5432/k' },
      { DATABASE_URL: 'postgres://x/y', KARIBCHE_DB_STATEMENTS: 'prepared' },
      { KARIBCHE_PGLITE_SETTINGS: 'shared_buffers=16MB; DROP TABLE payments' },
      { KARIBCHE_VACUUM: 'always' },
      { KARIBCHE_VACUUM_INTERVAL_MS: '10' },
      { KARIBCHE_PGLITE_VACUUM_INTERVAL_MS: '10' },
    ];
    for (const env of bad) assert.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
  });
  it('runs one worker on PGlite, one per two cores beside a local PostgreSQL, one per core beside a remote one', () => {
    assert.equal(loadConfig({}).workers, 1);
    assert.ok(loadConfig({ DATABASE_URL: 'postgres://x/y' }).workers >= 1);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://x/y', KARIBCHE_WORKERS: '3' }).workers, 3);
    for (const local of [
      'postgres://127.0.0.1:5432/k',
      'postgres://localhost/k',
      'postgres://[::1]/k',
      'postgres:///k?host=/var/run/postgresql',
      `postgres://${hostname()}/k`,
    ]) {
      assert.equal(isLocalDatabase(local), true, local);
      assert.deepEqual(
        [1, 2, 4, 8].map((cores) => defaultWorkers(local, cores)),
        [1, 1, 2, 4],
        local,
      );
    }
    assert.equal(isLocalDatabase('postgres://db.internal:5432/k'), false);
    assert.deepEqual(
      [1, 2, 4].map((cores) => defaultWorkers('postgres://db.internal:5432/k', cores)),
      [1, 2, 4],
    );
    assert.equal(defaultWorkers(undefined, 8), 1);
  });

  it('reads the PgBouncer and PGlite settings', () => {
    const pooled = loadConfig({
      DATABASE_URL: 'postgres://pgbouncer:6432/k',
      KARIBCHE_DATABASE_DIRECT_URL: 'postgres://db:5432/k',
      KARIBCHE_DB_STATEMENTS: 'unnamed',
    });
    assert.equal(pooled.databaseDirectUrl, 'postgres://db:5432/k');
    assert.equal(pooled.dbStatements, 'unnamed');
    assert.equal(loadConfig({}).dbStatements, 'auto');
    assert.equal(loadConfig({}).pgliteSettings, undefined);
    assert.deepEqual(loadConfig({ KARIBCHE_PGLITE_SETTINGS: 'shared_buffers=64MB, work_mem=4MB' }).pgliteSettings, [
      'shared_buffers=64MB',
      'work_mem=4MB',
    ]);
  });

  it('reads whether and how often the gateway vacuums its tables, the interval by its former name too', () => {
    assert.deepEqual([loadConfig({}).vacuum, loadConfig({}).vacuumIntervalMs], ['auto', 10_000]);
    assert.equal(loadConfig({ KARIBCHE_VACUUM: 'off' }).vacuum, 'off');
    assert.equal(loadConfig({ KARIBCHE_VACUUM_INTERVAL_MS: '2000' }).vacuumIntervalMs, 2_000);
    assert.equal(loadConfig({ KARIBCHE_PGLITE_VACUUM_INTERVAL_MS: '3000' }).vacuumIntervalMs, 3_000);
    const both = { KARIBCHE_VACUUM_INTERVAL_MS: '2000', KARIBCHE_PGLITE_VACUUM_INTERVAL_MS: '3000' };
    assert.equal(loadConfig(both).vacuumIntervalMs, 2_000);
  });

  it('reads the callback source addresses merchants allow-list', () => {
    const c = loadConfig({
      KARIBCHE_CALLBACK_SOURCE_ADDRESSES: '193.104.20.44, 185.52.80.44',
      KARIBCHE_CALLBACK_LOCAL_ADDRESS: '127.0.0.1',
    });
    assert.deepEqual(c.callbackSourceAddresses, ['193.104.20.44', '185.52.80.44']);
    assert.equal(c.callbackLocalAddress, '127.0.0.1');
  });
});
