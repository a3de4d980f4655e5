// Keeps `npm run bench` working: a 1-second run of every phase must finish, serve every request and
// write its results. It asserts no speed — figures come from full runs (README).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { BACKENDS } from '../src/testing/databases.ts';

// The benchmark measures PostgreSQL, so it runs where that backend is under test.
describe('benchmark script', () => {
  if (!BACKENDS.includes('postgres')) return;
  it('runs end to end in quick mode', { timeout: 180_000 }, async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-bench-test-')), 'results.json');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--quick'], {
      env: { ...process.env, BENCH_DURATION: '1', BENCH_CONNECTIONS: '8', BENCH_OUT: out },
    });
    assert.match(stdout, /create-payment \/ floor = /);
    const r = JSON.parse(fs.readFileSync(out, 'utf8'));
    for (const k of ['floor', 'createPaymentPostgres', 'createPaymentPglite']) {
      assert.ok(r[k].requests > 0, `${k} served requests`);
      assert.equal(r[k].non2xx + r[k].errors, 0, `${k} had failures`);
    }
    assert.ok(r.createPaymentPostgres.peakRssMb > 0);
  });
});
