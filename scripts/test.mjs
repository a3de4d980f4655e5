// `npm test`: lint (Biome), prepare the shared PGlite template, then run every *.test.ts (the typecheck beside them)
// with Node's test runner. Each test file runs its cases against every backend in KARIBCHE_TEST_BACKENDS
// (default: pglite,postgres). Without a reachable PostgreSQL server (and no KARIBCHE_TEST_BACKENDS
// asking for it) the run goes on with PGlite alone and the PostgreSQL-only tests report themselves
// skipped with the reason. While the files run, the PostgreSQL connections of each file (its
// application_name, set by src/testing/databases.ts) are counted: a file above its budget fails the
// run, so that three files at once stay under the server's max_connections.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);

/** A file whose last run took less than this shares its process with other small files (planUnits). */
const SMALL_FILE_SECONDS = 35;
/** How much of the last run's time the files of one shared process add up to, at most. */
const GROUP_SECONDS = 90;
/** A file with this line runs in a process of its own whatever its time (it changes the process: cwd, env). */
const OWN_PROCESS_MARK = '// test-runner: own process';

/** PostgreSQL connections one test file may hold at once, its gateway processes' included. */
const CONNECTIONS_PER_FILE = 30;
// This run's connections (src/testing/databases.ts names them), not those of other runs on the server.
process.env.KARIBCHE_TEST_RUN = String(process.pid);
const RUN_PREFIX = `karibche-test ${process.pid} `;
/** Each file's wall time in the last run, to start the slowest first. */
const TIMES_FILE = path.join(root, '.tmp', 'test-times.json');
const SEED_TIMES_FILE = path.join(root, 'scripts', 'test-times.seed.json');
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
let backends = (asked ?? 'pglite,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
if (backends.includes('postgres')) {
  const problem = await serverAnswers();
  if (problem) {
    const why = `PostgreSQL test server not reachable at ${SERVER_URL} (${problem})`;
    if (asked) {
      console.error(
        `${why}; KARIBCHE_TEST_BACKENDS=${asked} asks for it. Start it, or run with KARIBCHE_TEST_BACKENDS=pglite.`,
      );
      process.exit(1);
    }
    console.error(`\n*** ${why}: running on PGlite alone; the PostgreSQL-only tests are reported skipped. ***\n`);
    backends = backends.filter((b) => b !== 'postgres');
    process.env.KARIBCHE_TEST_POSTGRES_ABSENT = why;
  }
}
process.env.KARIBCHE_TEST_BACKENDS = backends.join(',');

// The lint and the format check first (seconds). The typecheck runs beside the test files
// (typecheckBeside): alone before them it kept one of the two cores idle for 10–20 s.
if (!only.length) {
  run('npm', ['run', '--silent', 'lint']);
  run('npm', ['run', '--silent', 'format:check']);
}
const typecheck = only.length ? null : typecheckBeside();
run(process.execPath, ['--import', 'tsx', 'scripts/prepare-test-db.ts']);

const files = only.length
  ? only
  : [...testFiles('src'), ...testFiles('test'), ...testFiles('bench'), ...testFiles('sdk')].sort();
const concurrency = Number(process.env.KARIBCHE_TEST_CONCURRENCY ?? '3');
const stopWatching = backends.includes('postgres') ? watchConnections() : null;
const [bundles, entries] = process.env.KARIBCHE_TEST_TSX
  ? [null, null]
  : await Promise.all([bundleTests(files), bundleEntries()]);
// src/testing/cli-process.ts starts this instead of bin/karibche.js (the tests that keep the shipped entry excepted),
// src/testing/process.ts this instead of src/main.ts through tsx.
if (entries) {
  process.env.KARIBCHE_TEST_CLI_BUNDLE = entries.cli;
  process.env.KARIBCHE_TEST_GATEWAY_BUNDLE = entries.gateway;
}
useScratchDir();
const machineBefore = machineCpu();
const results = await runFiles(files, concurrency);
const typecheckFailed = typecheck ? await typecheck : false;
const status = results.some((r) => r.code !== 0) || typecheckFailed ? 1 : 0;
printDurations(results);
printMachineCpu(machineBefore, machineCpu());

let over = [];
if (stopWatching) {
  const { perFile, peakTogether, maxConnections } = await stopWatching();
  const top = [...perFile].sort((a, b) => b[1] - a[1]);
  console.log(
    `\nPostgreSQL connections (sampled every 100 ms): at most ${peakTogether} of the test files' at once (server max_connections ${maxConnections}); ` +
      `peak per file (budget ${CONNECTIONS_PER_FILE}): ${top.map(([f, n]) => `${f} ${n}`).join(', ') || 'none'}`,
  );
  over = top.filter(([, n]) => n > CONNECTIONS_PER_FILE);
  for (const [f, n] of over)
    console.error(`${f} held ${n} PostgreSQL connections at once, over its budget of ${CONNECTIONS_PER_FILE}`);
}
process.exit(status || (over.length ? 1 : 0));

/**
 * `tsc --noEmit` in a child process while the test files run, at the lowest priority (nice 19):
 * it takes the CPU the files leave idle (a single-threaded compiler, 10–20 s here), instead of
 * running alone before them with the other core idle. Its output is printed when it ends; a type
 * error fails the run as before, only later. Resolves to whether it failed.
 */
function typecheckBeside() {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const child = spawn('nice', ['-n', '19', process.execPath, tsc, '--noEmit'], { stdio: ['ignore', 'pipe', 'pipe'] });
  // A run cut short (Ctrl-C, or killed) takes its typecheck with it.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const t0 = Date.now();
  return new Promise((resolve) => {
    child.on('error', (err) => {
      console.error(`\n*** the typecheck could not start: ${err.message} ***`);
      resolve(true);
    });
    child.on('close', (code) => {
      const seconds = ((Date.now() - t0) / 1000).toFixed(1);
      if (code === 0) console.log(`\ntypecheck (tsc --noEmit, beside the test files): no errors, ${seconds} s`);
      else console.error(`\n*** typecheck (tsc --noEmit) FAILED after ${seconds} s ***\n${out}`);
      resolve(code !== 0);
    });
  });
}

/**
 * What runs in each `node --test` process: the files of a full run that took less than
 * SMALL_FILE_SECONDS last time run several to a process, one after the other (an entry module that
 * imports their bundles in turn), the others one per process. A process costs ~3 s of CPU before
 * its first test on this 2-core machine — loading the application's modules (~1.1 s) and compiling
 * PGlite's WebAssembly and opening the first databases (~2 s) — which a small file paid again for
 * tests that take it a second: 71 of 105 files. The groups are packed by the last run's times
 * (GROUP_SECONDS each) so that they stay shorter than the long files they run beside. Files named
 * on the command line (unless KARIBCHE_TEST_GROUP=1), runs through tsx, and files without a known
 * time run alone.
 */
function planUnits(list, known) {
  const alone = (f) => ({ name: f, files: [f], entry: bundles ? bundles.get(f) : f });
  // KARIBCHE_TEST_GROUP=1 groups named files too (to replay a shared process's failure).
  if (!bundles || (only.length && !process.env.KARIBCHE_TEST_GROUP)) return list.map(alone);
  const small = list.filter(
    (f) => (known[f] ?? Infinity) < SMALL_FILE_SECONDS && !fs.readFileSync(f, 'utf8').includes(OWN_PROCESS_MARK),
  );
  const units = list.filter((f) => !small.includes(f)).map(alone);
  // First fit, longest first: groups of similar lengths.
  const groups = [];
  for (const f of [...small].sort((a, b) => known[b] - known[a] || a.localeCompare(b))) {
    const g = groups.find((x) => x.seconds + known[f] <= GROUP_SECONDS);
    if (g) {
      g.files.push(f);
      g.seconds += known[f];
    } else groups.push({ files: [f], seconds: known[f] });
  }
  const dir = path.dirname(bundles.get(list[0]));
  groups.forEach((g, i) => {
    if (g.files.length === 1) return units.push(alone(g.files[0]));
    const entry = path.join(dir, `group-${i + 1}.mjs`);
    // One import after the other: each file's suites register in turn, and run in that order.
    fs.writeFileSync(
      entry,
      g.files.map((f) => `import ${JSON.stringify(pathToFileURL(bundles.get(f)).href)};\n`).join(''),
    );
    units.push({ name: `group ${i + 1} (${g.files.length} files)`, files: g.files, entry });
  });
  return units;
}

/**
 * Runs each unit of planUnits in its own `node --test`, `concurrency` at once, slowest first by the
 * last run's times (.tmp/test-times.json), so that the long files do not start last and stretch the
 * run. A unit's output is printed whole when it ends, so that files running together do not interleave.
 */
async function runFiles(list, concurrency) {
  const known = readTimes();
  const units = planUnits(list, known);
  const timeOf = (u) => u.files.reduce((sum, f) => sum + (known[f] ?? Infinity), 0);
  // Files without a time yet go first: they may be slow.
  const queue = [...units].sort((a, b) => timeOf(b) - timeOf(a) || a.name.localeCompare(b.name));
  const results = [];
  const running = new Set();
  const started = Date.now();
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      stopping = true;
      for (const child of running) child.kill(signal);
    });
  }
  async function worker() {
    while (queue.length && !stopping) {
      const unit = queue.shift();
      const file = unit.name;
      const t0 = Date.now();
      // Through a shell that, once the file's process tree has ended, reports the CPU time the
      // tree used (its children's times in /proc/<shell>/stat): CPU against wall time tells a
      // file that computes from one that waits. The PostgreSQL server's CPU is not in it.
      // compile-once.mjs: Fastify's schema compilations reused between the apps a file builds.
      // KARIBCHE_TEST_NODE_ARGS: more options for the files' processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`.
      // A young generation of 3 × 64 MB (V8's default: 3 × 16): fewer scavenges of the short-lived
      // objects a test process makes by the million. Four in-process files, 2 alternating rounds:
      // 84.4 → 80.5 s of CPU (hostile input −8 %, the model −4 %); for these processes only, not
      // for the gateways they start (those run as `npm start` runs them).
      const once = [
        '--max-semi-space-size=64',
        ...(process.env.KARIBCHE_TEST_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
        '--import',
        path.join(root, 'src/testing/compile-once.mjs'),
      ];
      const args = bundles
        ? [...once, '--enable-source-maps', '--test', '--test-reporter=spec', unit.entry]
        : [...once, '--import', 'tsx', '--test', '--test-reporter=spec', unit.entry];
      const child = spawn(
        '/bin/sh',
        ['-c', '"$0" "$@"; rc=$?; cat /proc/$$/stat >&3; exit $rc', process.execPath, ...args],
        {
          stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
          // The file's name on its PostgreSQL connections (src/testing/databases.ts would take the bundle's).
          env: {
            ...process.env,
            FORCE_COLOR: process.stdout.isTTY ? '1' : '0',
            PGAPPNAME: `karibche-test ${process.env.KARIBCHE_TEST_RUN} ${file}`.slice(0, 63),
          },
        },
      );
      running.add(child);
      let out = '';
      let stat = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.stdio[3].on('data', (d) => (stat += d));
      const code = await new Promise((resolve) => child.on('close', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
      running.delete(child);
      const seconds = (Date.now() - t0) / 1000;
      const cpu = cpuSeconds(stat);
      results.push({ file, files: unit.files, seconds, cpu, code, out: code ? out : '' });
      const names = unit.files.length > 1 ? `: ${unit.files.join(', ')}` : '';
      process.stdout.write(
        `\n━━ ${file}${names} (${seconds.toFixed(1)} s, ${cpu === null ? '?' : cpu.toFixed(1)} s CPU${code ? ', FAILED' : ''}; ${results.length}/${units.length} done, ${((Date.now() - started) / 1000).toFixed(0)} s in)\n${out}`,
      );
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  if (!stopping) writeTimes(known, results);
  return results;
}

/**
 * Compiles the test files to JavaScript once, in one esbuild run, so that their processes load plain
 * modules: through tsx, every file's process transformed and resolved the application's ~150 modules
 * again through a loader thread, 3–4 s of CPU per file before its first test (measured on
 * src/acquirer/later-failures.test.ts: 12–14 s of CPU through tsx, 8.7–9.2 s compiled).
 * The packages stay outside (node_modules as they are); each module's import.meta.url is its own
 * source file's, so files found beside a module (migrations, fixtures, docs) are found as before.
 * The processes the tests start, the CLI's and the gateway's, are
 * compiled once on their own (bundleEntries).
 * KARIBCHE_TEST_TSX=1 runs the files through tsx instead.
 */
async function bundleTests(list) {
  const { build } = await import('esbuild');
  // This run's own directory: runs side by side in one checkout must not replace each other's files.
  const outdir = path.join(root, '.tmp', 'test-bundles', String(process.pid));
  fs.rmSync(outdir, { recursive: true, force: true });
  process.on('exit', () => fs.rmSync(outdir, { recursive: true, force: true }));
  const t0 = Date.now();
  try {
    await build({
      entryPoints: list,
      outdir,
      outbase: root,
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: 'linked',
      outExtension: { '.js': '.mjs' },
      plugins: [ownImportMeta()],
      logLevel: 'error',
    });
  } catch (err) {
    console.error(`\n*** compiling the test files failed (${err.message}): running them through tsx. ***\n`);
    return null;
  }
  console.log(`test files compiled in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return new Map(
    list.map((f) => [f, path.join(outdir, path.relative(root, path.resolve(f))).replace(/\.ts$/, '.mjs')]),
  );
}

/**
 * An esbuild plugin: each of the project's modules keeps its source file's import.meta.url,
 * .dirname and .filename in the bundle, so files found beside a module (migrations, fixtures, docs)
 * are found where they are found when the sources run through tsx.
 */
function ownImportMeta() {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?ts$/ }, async ({ path: file }) => {
        if (file.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const text = await fs.promises.readFile(file, 'utf8');
        // import.meta.dirname and .filename too: a test reading files beside it (migrations) must see its source folder.
        const contents = text
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href))
          .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(file)))
          .replaceAll('import.meta.filename', JSON.stringify(file));
        return { contents, loader: 'ts' };
      });
    },
  };
}

/**
 * Compiles the `karibche` CLI (src/cli/karibche.ts) and the gateway (src/main.ts) once, each into
 * one ESM bundle, which the tests start with plain `node` (src/testing/cli-process.ts through
 * KARIBCHE_TEST_CLI_BUNDLE, src/testing/process.ts through KARIBCHE_TEST_GATEWAY_BUNDLE) instead of
 * through tsx: every start registered the loader and transpiled the modules again
 * (src/cli/developer.test.ts starts the CLI dozens of times per backend; nine files start gateway
 * processes, the crash and stopping suites many).
 * Packages stay in node_modules (the bundle lies inside the checkout, so `import.meta.resolve`
 * finds them); the modules keep their source files' import.meta.url (ownImportMeta), so the one
 * file the CLI finds beside its code, the migrations folder of `karibche migrate`, is
 * src/store/migrations as through tsx, and the gateway's assets, docs and migrations likewise:
 * nothing to copy. Returns the bundles' paths, or null (the tests then start them through tsx).
 */
async function bundleEntries() {
  const { build } = await import('esbuild');
  const outdir = path.join(root, '.tmp', 'test-cli', String(process.pid));
  fs.rmSync(outdir, { recursive: true, force: true });
  process.on('exit', () => fs.rmSync(outdir, { recursive: true, force: true }));
  const out = { cli: path.join(outdir, 'karibche.mjs'), gateway: path.join(outdir, 'main.mjs') };
  try {
    await build({
      entryPoints: { karibche: path.join(root, 'src/cli/karibche.ts'), main: path.join(root, 'src/main.ts') },
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      // Its stacks (an unexpected error's, printed whole) name the sources: ~0.02 s of CPU per start.
      sourcemap: 'linked',
      plugins: [ownImportMeta()],
      logLevel: 'error',
    });
  } catch (err) {
    console.error(
      `\n*** compiling the CLI and the gateway failed (${err.message}): the tests start them through tsx. ***\n`,
    );
    return null;
  }
  console.log(
    `CLI and gateway compiled into ${path.relative(root, outdir)} (KARIBCHE_TEST_CLI_BUNDLE, KARIBCHE_TEST_GATEWAY_BUNDLE)`,
  );
  return out;
}

/**
 * Points TMPDIR of the test files (and of everything they start: gateways, the CLI, Chromium, the
 * private PostgreSQL clusters) at a directory of this run on /dev/shm when that is a tmpfs with room.
 * Most files copy a PGlite template data dir (40 MB, 1,116 files) per database they open: on this
 * machine's ext4 a copy took 1.1–1.4 s of CPU (the kernel's, the journal's) where tmpfs takes 0.08 s,
 * and removing it 0.08–0.12 s against 0.02. The directory is removed when the run ends. It is
 * world-writable and sticky as /tmp is, since the cluster suites run PostgreSQL as its own user there.
 * KARIBCHE_TEST_TMPDIR chooses another directory; an empty one keeps the system's.
 */
function useScratchDir() {
  const asked = process.env.KARIBCHE_TEST_TMPDIR;
  if (asked === '') return;
  let base = asked;
  if (base === undefined) {
    try {
      const shm = fs.statfsSync('/dev/shm');
      // tmpfs's magic number; a few GB free: a full run holds up to ~30 data dirs at once.
      if (shm.type !== 0x01021994 || shm.bavail * shm.bsize < 2 * 1024 ** 3) return;
      base = '/dev/shm';
    } catch {
      return; // No /dev/shm: the system's temporary directory.
    }
  }
  const dir = path.join(base, `karibche-test-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o1777);
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  process.env.TMPDIR = dir;
  console.log(`temporary files of the tests in ${dir} (TMPDIR)`);
}

/** The machine's busy and total CPU seconds so far (/proc/stat's first line), or null. */
function machineCpu() {
  try {
    const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const idle = ticks[3] + ticks[4]; // idle + iowait
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: (total - idle) / 100, total: total / 100 };
  } catch {
    return null;
  }
}

/**
 * What the whole machine spent while the files ran: the per-process figures miss the PostgreSQL
 * server's backends and the Chromium processes its browser leaves to init when it closes (measured:
 * the docs browser suite alone, 16 s of CPU in its process tree, 50 s of the machine's).
 */
function printMachineCpu(before, after) {
  if (!before || !after) return;
  const busy = after.busy - before.busy;
  const total = after.total - before.total;
  console.log(
    `\nThe machine while the files ran: ${busy.toFixed(0)} s of CPU busy of ${total.toFixed(0)} s its cores had (${((100 * busy) / total).toFixed(0)} %; every process on it, the PostgreSQL server and Chromium's included)`,
  );
}

/** User + system seconds of the shell's waited-for children, from a /proc/<pid>/stat line. */
function cpuSeconds(stat) {
  // Fields after the command name (which may hold spaces, in parentheses): cutime and cstime are the 14th and 15th.
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .trim()
    .split(' ');
  const ticks = Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(ticks) ? ticks / 100 : null;
}

/**
 * The last run's wall times per file, for the order (slowest first); in a fresh clone (CI), the
 * committed snapshot scripts/test-times.seed.json, so that the long files do not start last by
 * name and stretch the run's tail (a fresh clone ran hostile-input, 67 s, as the very last file).
 */
function readTimes() {
  for (const file of [TIMES_FILE, SEED_TIMES_FILE]) {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      // Not there (a fresh clone has no .tmp): the next one.
    }
  }
  return {};
}

function writeTimes(known, results) {
  for (const r of results) {
    // A shared process's time, shared out by the files' last times: it keeps them in their groups.
    const before = r.files.reduce((sum, f) => sum + (known[f] ?? 0), 0);
    for (const f of r.files) known[f] = r.files.length === 1 || !before ? r.seconds : (r.seconds * known[f]) / before;
  }
  fs.mkdirSync(path.dirname(TIMES_FILE), { recursive: true });
  fs.writeFileSync(TIMES_FILE, `${JSON.stringify(known, null, 1)}\n`);
}

/** The per-file wall times, slowest first: where a run's time goes (docs/testing.md). */
function printDurations(results) {
  const sorted = [...results].sort((a, b) => b.seconds - a.seconds);
  const total = results.reduce((s, r) => s + r.seconds, 0);
  const cpu = results.reduce((s, r) => s + (r.cpu ?? 0), 0);
  console.log(
    `\nTest processes by wall time (${results.reduce((n, r) => n + r.files.length, 0)} files in ${results.length} processes: ${total.toFixed(0)} s of process time, ${cpu.toFixed(0)} s of CPU in their processes, ${concurrency} at once):`,
  );
  console.log('   wall      CPU  file');
  for (const r of sorted)
    console.log(
      `${r.seconds.toFixed(1).padStart(7)} s ${(r.cpu === null ? '?' : r.cpu.toFixed(1)).padStart(6)} s  ${r.code ? 'FAILED ' : ''}${r.file}`,
    );
  const failed = results.filter((r) => r.code !== 0);
  if (!failed.length) return;
  // The failures again, last: CI keeps a run's tail, and a failed file's details scrolled out of it
  // among the files that ended after it (stop 30: only the failing test's name reached us).
  for (const r of failed)
    console.log(
      `\n━━ failures of ${r.file}${r.files.length > 1 ? ` (${r.files.join(', ')})` : ''}\n${failureDetails(r.out)}`,
    );
  console.log(`\nFailed files (${failed.length}): ${failed.map((r) => r.file).join(', ')}`);
}

/** The spec reporter's closing "failing tests" section (each failure with its error), or the output's end. */
function failureDetails(out) {
  const at = out.lastIndexOf('failing tests:');
  const from = at >= 0 ? out.lastIndexOf('\n', at) + 1 : Math.max(0, out.length - 4000);
  return out.slice(from, from + 8000).trimEnd();
}
