// Keeps `npm run bench` working: a 1-second run of every phase must finish, serve every request and
// write its results. It asserts no speed — figures come from full runs (README).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { SERVER_URL } from '../src/testing/databases.ts';
import { POSTGRES_SKIP } from '../src/testing/postgres-only.ts';
import { lifecycleRates } from './run.ts';

describe('the lifecycle rates asked', () => {
  it('are payments a second, or shares of the run’s floor', () => {
    assert.deepEqual(lifecycleRates('0.05x,0.1x,0.15x', 8_685), [434, 869, 1_303]);
    assert.deepEqual(lifecycleRates('200, 400,.5x', 1_000), [200, 400, 500]);
  });
  it('refuse a share without a floor, and what is neither', () => {
    assert.throws(() => lifecycleRates('0.15x', 0), /0\.15x: a share of the floor, and this run measured no floor/);
    assert.throws(() => lifecycleRates('400,fast', 8_685), /lifecycle rate fast: payments a second/);
    assert.throws(() => lifecycleRates('0', 8_685), /lifecycle rate 0:/);
  });
});

// The benchmark measures PostgreSQL, so it runs where that backend is under test.
describe('benchmark script', () => {
  it('runs end to end in quick mode [postgres]', { timeout: 400_000, skip: POSTGRES_SKIP }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-bench-test-'));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const out = path.join(dir, 'results.json');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--quick'], {
      // Small pools: the test files share the server's connections, and this run has the floor, a
      // gateway of one worker and one of two up at once (5 + 5 + 2 × 5, and a LISTEN each).
      env: {
        ...process.env,
        BENCH_DURATION: '1',
        BENCH_CONNECTIONS: '8',
        BENCH_OUT: out,
        KARIBCHE_DB_POOL: '5',
        BENCH_WORKERS: '',
      },
    });
    assert.match(stdout, /create-payment \/ floor = /);
    const r = JSON.parse(fs.readFileSync(out, 'utf8'));
    for (const k of ['floor', 'createPaymentPostgres', 'createPaymentPostgresOtherWorkers', 'createPaymentPglite']) {
      assert.ok(r[k].requests > 0, `${k} served requests`);
      assert.equal(r[k].non2xx + r[k].errors, 0, `${k} had failures`);
    }
    // The headline runs what `npm start` runs; the other worker count is measured beside it.
    assert.equal(r.createPaymentPostgres.workers, loadConfig({ DATABASE_URL: SERVER_URL }).workers);
    assert.deepEqual([r.createPaymentPostgres.workers, r.createPaymentPostgresOtherWorkers.workers].sort(), [1, 2]);
    assert.ok(r.createPaymentPostgres.peakRssMb > 0);
    // Every payment prepared for the one-merchant phase was refunded or completed, and as many
    // saved-card charges succeeded.
    const { one, many, executions } = r.merchantOps;
    for (const round of [...one, ...many, ...executions.one, ...executions.many]) {
      assert.equal(round.errors, 0);
      assert.equal(round.operations, 32);
    }
    assert.equal(executions.one.length, one.length);
    // The embedded default is reported against the same floor (a ratio, not a timing asserted).
    assert.equal(r.pgliteRatio, Number((r.createPaymentPglite.rps / r.floor.rps).toFixed(2)));
    assert.match(stdout, /create-payment\/s \(target ≥ 1,500\) = [\d.]+ × the floor \(target ≥ 0\.9 ×\)/);
    // The whole payment on the embedded default too, its callbacks timed from the events feed:
    // every payment paid was called back, each rate with its verdict against the floor.
    assert.ok(r.lifecyclePglite.length > 0);
    for (const c of r.lifecyclePglite) {
      assert.equal(c.backend, 'PGlite');
      assert.equal(c.errors, 0);
      assert.ok(c.paid > 0, 'payments paid on PGlite');
      assert.equal(c.delivered, c.paid, 'every paid payment called back');
      assert.equal(c.commitsPerPayment, null, 'no server to count commits on');
    }
    assert.match(stdout, /PGlite: payments paid at \d+\/s = [\d.]+ × the floor's create rate/);
    assert.match(stdout, /target ≥ 0\.1 × the floor with callback p99 ≤ 250 ms/);
    // The embedded database's memory target (RSS is not a timing: it does not flake with load).
    assert.ok(r.createPaymentPglite.peakRssMb < 256, `PGlite gateway peak RSS ${r.createPaymentPglite.peakRssMb} MB`);
  });
});
