// `npm test`: lint (Biome), typecheck, prepare the shared PGlite template, then run every *.test.ts
// with Node's test runner. Each test file runs its cases against every backend in KARIBCHE_TEST_BACKENDS
// (default: pglite,postgres). Without a reachable PostgreSQL server (and no KARIBCHE_TEST_BACKENDS
// asking for it) the run goes on with PGlite alone and the PostgreSQL-only tests report themselves
// skipped with the reason. While the files run, the PostgreSQL connections of each file (its
// application_name, set by src/testing/databases.ts) are counted: a file above its budget fails the
// run, so that three files at once stay under the server's max_connections.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);

/** PostgreSQL connections one test file may hold at once, its gateway processes' included. */
const CONNECTIONS_PER_FILE = 30;
// This run's connections (src/testing/databases.ts names them), not those of other runs on the server.
process.env.KARIBCHE_TEST_RUN = String(process.pid);
const RUN_PREFIX = `karibche-test ${process.pid} `;
const SERVER_URL = process.env.KARIBCHE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

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

async function serverAnswers() {
  const c = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 5_000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return null;
  } catch (err) {
    return err.message || err.code || String(err);
  } finally {
    await c.end().catch(() => {});
  }
}

/** Samples pg_stat_activity until stopped; returns the peak per test file and of all of them at once. */
function watchConnections() {
  const perFile = new Map();
  let peakTogether = 0;
  let maxConnections = null;
  let stopped = false;
  const client = new pg.Client({ connectionString: SERVER_URL, application_name: 'karibche-test-monitor' });
  const done = (async () => {
    try {
      await client.connect();
      maxConnections = Number((await client.query('SHOW max_connections')).rows[0].max_connections);
      while (!stopped) {
        const { rows } = await client.query(
          `SELECT application_name AS file, count(*)::int AS n FROM pg_stat_activity WHERE starts_with(application_name, $1) GROUP BY 1`,
          [RUN_PREFIX],
        );
        let together = 0;
        for (const { file, n } of rows) {
          const name = file.slice(RUN_PREFIX.length);
          perFile.set(name, Math.max(perFile.get(name) ?? 0, n));
          together += n;
        }
        peakTogether = Math.max(peakTogether, together);
        await new Promise((r) => setTimeout(r, 100));
      }
    } catch (err) {
      if (!stopped) console.error(`connection count stopped: ${err.message}`);
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return async () => {
    stopped = true;
    await done;
    return { perFile, peakTogether, maxConnections };
  };
}

const only = process.argv.slice(2);
const asked = process.env.KARIBCHE_TEST_BACKENDS;
let backends = (asked ?? 'pglite,postgres').split(',').map((s) => s.trim()).filter(Boolean);
if (backends.includes('postgres')) {
  const problem = await serverAnswers();
  if (problem) {
    const why = `PostgreSQL test server not reachable at ${SERVER_URL} (${problem})`;
    if (asked) {
      console.error(`${why}; KARIBCHE_TEST_BACKENDS=${asked} asks for it. Start it, or run with KARIBCHE_TEST_BACKENDS=pglite.`);
      process.exit(1);
    }
    console.error(`\n*** ${why}: running on PGlite alone; the PostgreSQL-only tests are reported skipped. ***\n`);
    backends = backends.filter((b) => b !== 'postgres');
    process.env.KARIBCHE_TEST_POSTGRES_ABSENT = why;
  }
}
process.env.KARIBCHE_TEST_BACKENDS = backends.join(',');

// The lint first: it takes seconds where the typecheck takes a minute. Formatting is not checked
// yet (`npm run format:check`): the tree is formatted once, in its own commit, after the open branches merge.
if (!only.length) {
  run('npm', ['run', '--silent', 'lint']);
  run('npx', ['tsc', '--noEmit']);
}
run(process.execPath, ['--import', 'tsx', 'scripts/prepare-test-db.ts']);

const files = only.length ? only : [...testFiles('src'), ...testFiles('bench'), ...testFiles('sdk')].sort();
const concurrency = process.env.KARIBCHE_TEST_CONCURRENCY ?? '3';
const stopWatching = backends.includes('postgres') ? watchConnections() : null;
const runner = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => runner.kill(signal));
const status = await new Promise((resolve) => runner.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));

let over = [];
if (stopWatching) {
  const { perFile, peakTogether, maxConnections } = await stopWatching();
  const top = [...perFile].sort((a, b) => b[1] - a[1]);
  console.log(
    `\nPostgreSQL connections (sampled every 100 ms): at most ${peakTogether} of the test files' at once (server max_connections ${maxConnections}); ` +
      `peak per file (budget ${CONNECTIONS_PER_FILE}): ${top.map(([f, n]) => `${f} ${n}`).join(', ') || 'none'}`,
  );
  over = top.filter(([, n]) => n > CONNECTIONS_PER_FILE);
  for (const [f, n] of over) console.error(`${f} held ${n} PostgreSQL connections at once, over its budget of ${CONNECTIONS_PER_FILE}`);
}
process.exit(status || (over.length ? 1 : 0));
