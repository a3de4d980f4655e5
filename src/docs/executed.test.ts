// Docs that are executed (issue 26): every shell, JavaScript, PHP and Python block of README.md and
// docs/**/*.md runs, in the order a reader meets it, against a fresh gateway process started the way
// `npm start` starts it (sandbox, embedded PGlite, a new data directory); then the API reference's
// example requests run in curl, Node and PHP. The reader's working directory is a temporary copy of
// the checkout (symbolic links to its files) whose `data/` is that gateway's data directory, so the
// blocks read `./data/demo-merchant.json` and `data/admin-token` as written.
//
// What the test changes in a block, and nothing else:
//  - the documented addresses: the gateway's 127.0.0.1:8080 and the callback endpoint's port 3000
//    become free ports (another gateway may hold 8080 on this machine);
//  - `curl` fails on an HTTP error (`--fail-with-body`): a reader sees the problem JSON, a test needs
//    the exit status.
// The blocks of one page run in one bash session (variables set in one block are there in the next);
// a page after the quick start starts with the variables the quick start tells the reader to set
// (READER_VARIABLES, the same list as the API reference's table) and nothing else.
// How a block is marked (not run, in the background, an excerpt of a file): src/testing/doc-blocks.ts
// and docs/guides/contributing.md.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { READER_VARIABLES } from './reference.ts';
import { RUNNABLE, SHOWN, blocksOf, pagesInReadingOrder, type DocBlock } from '../testing/doc-blocks.ts';
import { freePort } from '../testing/ports.ts';
import { startGatewayProcess, type GatewayProcess } from '../testing/process.ts';

const ROOT = process.cwd();
/** The ports the docs use, and what each stands for. */
const DOCUMENTED_PORTS = { gateway: 8080, callbacks: 3000 } as const;
/** Checkout entries the reader's directory does not share: its own data, and what a run leaves behind. */
const NOT_LINKED = new Set(['data', '.git', 'test-artifacts', 'dist']);
const RUNTIMES = { node: process.execPath, php: 'php', python: 'python3' } as const;
const INSTALL = { php: 'apt-get install php-cli', python: 'apt-get install python3' } as const;
const missingRuntime = (lang: 'php' | 'python') => (spawnSync(RUNTIMES[lang], ['--version']).status === 0 ? null : `${RUNTIMES[lang]} is not installed (${INSTALL[lang]})`);
const EXTENSION = { node: 'mjs', php: 'php', python: 'py' } as const;

const pages = pagesInReadingOrder(ROOT).map((page) => ({ page, blocks: blocksOf(page, fs.readFileSync(path.join(ROOT, page), 'utf8')) }));

const tally = { run: new Map<string, number>(), shown: 0, excerpts: 0, notRun: [] as string[], skipped: [] as string[] };
const count = (lang: string) => tally.run.set(lang, (tally.run.get(lang) ?? 0) + 1);

interface Session {
  cwd: string;
  ports: Record<number, number>;
  /** Where the quick start leaves the reader's variables for the pages after it. */
  state: string;
}

const where = (b: DocBlock) => `${b.page}:${b.line}`;

/** The block's text with the documented ports replaced by this run's. */
function withPorts(code: string, ports: Record<number, number>): string {
  const swap = (p: string) => String(ports[Number(p)] ?? p);
  return code.replace(/\b(127\.0\.0\.1|localhost):(\d+)\b/g, (_, host: string, p: string) => `${host}:${swap(p)}`).replace(/\bPORT=(\d+)\b/g, (_, p: string) => `PORT=${swap(p)}`);
}

/** One bash script for a page: its runnable blocks in order, each announced on stderr. */
function pageScript(page: string, blocks: DocBlock[], s: Session, dir: string): { script: string; ran: DocBlock[] } {
  const lines = [
    'set -euo pipefail',
    '# An HTTP error fails the block (a reader reads the problem JSON; the test needs the status).',
    'curl() { command curl --fail-with-body "$@"; }',
  ];
  // The quick start is where a reader sets the variables every later page uses.
  const setsReaderVariables = page === 'docs/guides/quickstart.md';
  if (page.startsWith('docs/') && !setsReaderVariables && fs.existsSync(s.state)) lines.push(`source ${JSON.stringify(s.state)}`);
  const ran: DocBlock[] = [];
  for (const b of blocks) {
    const runner = RUNNABLE[b.lang];
    if (b.marker?.kind === 'not-run') {
      tally.notRun.push(`${where(b)} (${b.lang || 'no language'}): ${b.marker.reason}`);
      continue;
    }
    if (b.marker?.kind === 'excerpt-of') {
      const file = path.join(path.dirname(path.join(ROOT, b.page)), b.marker.file);
      assert.ok(fs.existsSync(file), `${where(b)}: ${b.marker.file} does not exist`);
      assert.ok(fs.readFileSync(file, 'utf8').includes(b.code), `${where(b)}: the block is no longer a verbatim part of ${b.marker.file}`);
      tally.excerpts++;
      continue;
    }
    if (!runner) {
      assert.ok(SHOWN.has(b.lang), `${where(b)}: ${b.problem}`);
      tally.shown++;
      continue;
    }
    const code = withPorts(b.code, s.ports);
    lines.push(`echo "@@block ${where(b)}" >&2`);
    if (runner === 'shell' && b.marker?.kind === 'background') {
      const log = path.join(dir, `background-${b.line}.log`);
      lines.push(`{\n${code}\n} >${JSON.stringify(log)} 2>&1 &`);
      if (b.marker.port !== null) {
        const port = s.ports[b.marker.port] ?? b.marker.port;
        // The page goes on once the server listens (bash's /dev/tcp: no other tool needed).
        // It fails at once when the server exited instead.
        lines.push(`server=$!`, `until (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null; do kill -0 $server; sleep 0.1; done`);
      }
    } else if (runner === 'shell') {
      lines.push(code);
    } else {
      const missing = runner === 'node' ? null : missingRuntime(runner);
      if (missing) {
        tally.skipped.push(`${where(b)}: ${missing}`);
        continue;
      }
      const file = path.join(dir, `block-${b.line}.${EXTENSION[runner]}`);
      fs.writeFileSync(file, runner === 'php' && !b.code.trimStart().startsWith('<?php') ? `<?php\n${code}\n` : `${code}\n`);
      lines.push(`${RUNTIMES[runner]} ${JSON.stringify(file)}`);
    }
    ran.push(b);
    count(b.lang);
  }
  if (setsReaderVariables) lines.push(`for v in ${READER_VARIABLES.join(' ')}; do printf 'export %s=%q\\n' "$v" "\${!v}"; done > ${JSON.stringify(s.state)}`);
  return { script: `${lines.join('\n')}\n`, ran };
}

/** Runs a script in its own process group, which is ended afterwards (background blocks with it). */
async function runScript(file: string, cwd: string, timeoutMs: number): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', [file], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? os.tmpdir(), LANG: 'C.UTF-8' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // The group has ended already.
  }
  return { status, stdout, stderr };
}

describe('the documentation, run as a reader runs it, against a fresh gateway process', { timeout: 300_000 }, () => {
  let gw: GatewayProcess;
  const session: Session = { cwd: '', ports: {}, state: '' };
  before(async () => {
    session.cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-reader-'));
    for (const entry of fs.readdirSync(ROOT)) if (!NOT_LINKED.has(entry)) fs.symlinkSync(path.join(ROOT, entry), path.join(session.cwd, entry));
    fs.mkdirSync(path.join(session.cwd, 'data'));
    session.state = path.join(session.cwd, '.reader-variables.sh');
    const gatewayPort = await freePort();
    session.ports = { [DOCUMENTED_PORTS.gateway]: gatewayPort, [DOCUMENTED_PORTS.callbacks]: await freePort() };
    // What `npm start` runs, on a data directory of its own (never ./data): the sandbox writes the
    // admin token and the demo merchant there on its first start.
    gw = await startGatewayProcess({
      KARIBCHE_MODE: 'sandbox',
      KARIBCHE_DATA_DIR: path.join(session.cwd, 'data'),
      PORT: String(gatewayPort),
      HOST: '127.0.0.1',
      KARIBCHE_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
      KARIBCHE_ADMIN_TOKEN: '',
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
    });
  });
  after(async () => {
    await gw?.kill('SIGTERM');
    const runs = [...tally.run].map(([lang, n]) => `${n} ${lang}`).join(', ');
    console.log(`# docs blocks run: ${[...tally.run.values()].reduce((a, b) => a + b, 0)} (${runs}); shown only (json, text, http, ini): ${tally.shown}; excerpts checked against their file: ${tally.excerpts}`);
    console.log(`# marked not-run: ${tally.notRun.length}\n${tally.notRun.map((r) => `#   ${r}`).join('\n')}`);
    if (tally.skipped.length) console.log(`# skipped (runtime missing): ${tally.skipped.length}\n${tally.skipped.map((r) => `#   ${r}`).join('\n')}`);
  });

  it('every block has a language the test knows or a marker it can read', () => {
    const problems = pages.flatMap((p) => p.blocks.filter((b) => b.problem).map((b) => `${where(b)}: ${b.problem}`));
    assert.deepEqual(problems, []);
  });

  for (const { page, blocks } of pages) {
    if (!blocks.length) continue;
    it(`${page}: its blocks run in order`, { timeout: 120_000 }, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-page-'));
      const { script, ran } = pageScript(page, blocks, session, dir);
      if (!ran.length) return;
      const file = path.join(dir, 'page.sh');
      fs.writeFileSync(file, script);
      const r = await runScript(file, session.cwd, 90_000);
      const failed = [...r.stderr.matchAll(/@@block (\S+)/g)].at(-1)?.[1];
      const background = fs.readdirSync(dir).filter((f) => f.startsWith('background-')).map((f) => `\n--- ${f}\n${fs.readFileSync(path.join(dir, f), 'utf8').slice(-2000)}`);
      assert.equal(r.status, 0, `${page}: block ${failed} failed (exit ${r.status})\n--- stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}${background.join('')}`);
    });
  }
});
