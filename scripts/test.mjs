// `npm test`: typecheck, prepare the shared PGlite template, then run every *.test.ts with Node's
// test runner. Each test file runs its cases against every backend in KARIBCHE_TEST_BACKENDS
// (default: pglite,postgres).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function testFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const only = process.argv.slice(2);
if (!only.length) run('npx', ['tsc', '--noEmit']);
run(process.execPath, ['--import', 'tsx', 'scripts/prepare-test-db.ts']);

const files = only.length ? only : [...testFiles('src'), ...testFiles('bench')].sort();
const concurrency = process.env.KARIBCHE_TEST_CONCURRENCY ?? '3';
run(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files]);
