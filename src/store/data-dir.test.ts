// test-runner: own process (it changes the working directory)
// Tests and benchmarks never write into ./data (a sandbox running from the checkout owns it): under
// the test runner the default data dir is refused wherever the gateway writes (the PGlite database,
// the sandbox's credential files), in this process and in every gateway process a test starts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../config.ts';
import { createGateway } from '../gateway.ts';
import { createLogger } from '../logger.ts';
import { dataDirToWrite } from './data-dir.ts';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

describe('the default data dir under the test runner', () => {
  it('is refused; a temp dir is not', () => {
    assert.ok(process.env.NODE_TEST_CONTEXT, 'runs under node --test');
    assert.throws(
      () => dataDirToWrite('./data'),
      (e: Error) => e instanceof ConfigError && /never write into .*data/.test(e.message),
    );
    assert.throws(() => dataDirToWrite(path.resolve('data')), ConfigError);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-datadir-'));
    try {
      assert.equal(dataDirToWrite(tmp), tmp);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('an in-process sandbox gateway without KARIBCHE_DATA_DIR fails before writing anything', async () => {
    // In a working directory of its own, so that even a broken guard cannot touch the checkout's ./data.
    const home = process.cwd();
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-cwd-'));
    process.chdir(cwd);
    try {
      const config = loadConfig({ KARIBCHE_MODE: 'sandbox', DATABASE_URL: '', LOG_LEVEL: 'silent' });
      assert.equal(config.dataDir, path.join(fs.realpathSync(cwd), 'data'));
      await assert.rejects(createGateway(config, { background: false, log: createLogger('silent') }), ConfigError);
      assert.equal(fs.existsSync(path.join(cwd, 'data')), false, 'nothing was created in ./data');
    } finally {
      process.chdir(home);
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('a gateway process a test starts without KARIBCHE_DATA_DIR refuses to start and creates nothing', {
    timeout: 60_000,
  }, async () => {
    // Started in a directory of its own, so that even a broken guard cannot touch the checkout's ./data.
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-cwd-'));
    try {
      const child = spawn(process.execPath, ['--import', TSX, MAIN], {
        cwd,
        env: {
          ...process.env,
          KARIBCHE_DATA_DIR: '',
          DATABASE_URL: '',
          KARIBCHE_MODE: 'sandbox',
          KARIBCHE_ADMIN_TOKEN: '',
          PORT: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const code = await new Promise((resolve) => child.on('exit', resolve));
      assert.equal(code, 2, out);
      assert.match(out, /tests and benchmarks never write into .*karibche-cwd-\w+\/data .*set KARIBCHE_DATA_DIR/);
      assert.equal(fs.existsSync(path.join(cwd, 'data')), false, 'nothing was created in ./data');
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});
