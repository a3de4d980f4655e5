// `node scripts/test-repeat.mjs [runs] [test files…]`: the suite again and again, the way CI runs it —
// a clean clone of this checkout's HEAD in a temp dir, `npm ci`, then `npm test` (or only the files
// given) `runs` times in a row (default 10), going on after a failure so that one run tells how often.
// Each run's whole output is kept in the temp dir; one line per run (exit code, seconds, the runner's
// counts) goes to stdout. It never touches ./data or this checkout: the clone is its own.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const [runsArg, ...files] = process.argv.slice(2);
const runs = runsArg === undefined ? 10 : Number(runsArg);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('usage: node scripts/test-repeat.mjs [runs ≥ 1] [test files…]');
  process.exit(2);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-repeat-'));
const clone = path.join(dir, 'clone');
const must = (cmd, args, cwd) => {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) {
    console.error(`${cmd} ${args.join(' ')} failed (exit ${r.status})`);
    process.exit(1);
  }
};
must('git', ['clone', '-q', root, clone], dir);
const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: clone, encoding: 'utf8' }).stdout.trim();
must('npm', ['ci', '--no-audit', '--no-fund'], clone);
console.log(`${runs} runs of ${files.length ? files.join(' ') : 'npm test'} on ${head}; logs in ${dir}`);

let green = 0;
for (let i = 1; i <= runs; i++) {
  const log = path.join(dir, `run${i}.log`);
  const out = fs.openSync(log, 'w');
  const started = Date.now();
  const r = spawnSync(process.execPath, ['scripts/test.mjs', ...files], { cwd: clone, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const counts = fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => /^ℹ (tests|pass|fail|cancelled|skipped) /.test(l))
    .map((l) => l.slice(2))
    .join(', ');
  if (r.status === 0) green++;
  console.log(
    `run ${i}: exit ${r.status}, ${Math.round((Date.now() - started) / 1000)} s, ${counts || 'no counts (see the log)'}`,
  );
}
console.log(`${green} of ${runs} green`);
process.exit(green === runs ? 0 : 1);
