import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

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
    ];
    for (const env of bad) assert.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
  });
  it('runs one worker per core on PostgreSQL and one on PGlite by default', () => {
    assert.equal(loadConfig({}).workers, 1);
    assert.ok(loadConfig({ DATABASE_URL: 'postgres://x/y' }).workers >= 1);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://x/y', KARIBCHE_WORKERS: '3' }).workers, 3);
  });

  it('reads the callback source addresses merchants allow-list', () => {
    const c = loadConfig({ KARIBCHE_CALLBACK_SOURCE_ADDRESSES: '193.104.20.44, 185.52.80.44', KARIBCHE_CALLBACK_LOCAL_ADDRESS: '127.0.0.1' });
    assert.deepEqual(c.callbackSourceAddresses, ['193.104.20.44', '185.52.80.44']);
    assert.equal(c.callbackLocalAddress, '127.0.0.1');
  });
});
