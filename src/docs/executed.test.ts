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
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { DEMO_SETTINGS } from '../admin/bootstrap.ts';
import { CALLBACK_URL } from '../api/examples.ts';
import { READER_VARIABLES, buildReference, type OpenApiDocument, type ReferenceOperation } from './reference.ts';
import { RUNNABLE, SHOWN, blocksOf, pagesInReadingOrder, type DocBlock } from '../testing/doc-blocks.ts';
import { PGLITE_TEMPLATE } from '../testing/databases.ts';
import { freePort } from '../testing/ports.ts';
import { startGatewayProcess, type GatewayProcess } from '../testing/process.ts';
import { Receiver } from '../testing/receiver.ts';
import { sameShape } from '../testing/same-shape.ts';
import { waitUntil } from '../testing/wait.ts';

const ROOT = process.cwd();
/** The ports the docs use, and what each stands for. */
const DOCUMENTED_PORTS = { gateway: 8080, callbacks: 3000 } as const;
/** Checkout entries the reader's directory does not share: its own data, and what a run leaves behind. */
const NOT_LINKED = new Set(['data', '.git', 'test-artifacts', 'dist']);
const RUNTIMES = { node: process.execPath, php: 'php', python: 'python3' } as const;
const INSTALL = { php: 'apt-get install php-cli', python: 'apt-get install python3' } as const;
const missingRuntime = (lang: 'php' | 'python') =>
  spawnSync(RUNTIMES[lang], ['--version']).status === 0
    ? null
    : `${RUNTIMES[lang]} is not installed (${INSTALL[lang]})`;
const EXTENSION = { node: 'mjs', php: 'php', python: 'py' } as const;

const pages = pagesInReadingOrder(ROOT).map((page) => ({
  page,
  blocks: blocksOf(page, fs.readFileSync(path.join(ROOT, page), 'utf8')),
}));

const tally = {
  run: new Map<string, number>(),
  shown: 0,
  excerpts: 0,
  notRun: [] as string[],
  skipped: [] as string[],
};
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
  return code
    .replace(/\b(127\.0\.0\.1|localhost):(\d+)\b/g, (_, host: string, p: string) => `${host}:${swap(p)}`)
    .replace(/\bPORT=(\d+)\b/g, (_, p: string) => `PORT=${swap(p)}`);
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** One bash script for a page: its runnable blocks in order, each announced on stderr. */
function pageScript(page: string, blocks: DocBlock[], s: Session, dir: string): { script: string; ran: DocBlock[] } {
  const lines = [
    'set -euo pipefail',
    '# An HTTP error fails the block (a reader reads the problem JSON; the test needs the status).',
    'curl() { command curl --fail-with-body "$@"; }',
  ];
  // The quick start is where a reader sets the variables every later page uses.
  const setsReaderVariables = page === 'docs/guides/quickstart.md';
  if (page.startsWith('docs/') && !setsReaderVariables && fs.existsSync(s.state))
    lines.push(`source ${JSON.stringify(s.state)}`);
  const ran: DocBlock[] = [];
  let backgroundLog: string | null = null;
  for (const b of blocks) {
    const runner = RUNNABLE[b.lang];
    if (b.marker?.kind === 'not-run') {
      tally.notRun.push(`${where(b)} (${b.lang || 'no language'}): ${b.marker.reason}`);
      continue;
    }
    if (b.marker?.kind === 'excerpt-of') {
      const file = path.join(path.dirname(path.join(ROOT, b.page)), b.marker.file);
      assert.ok(fs.existsSync(file), `${where(b)}: ${b.marker.file} does not exist`);
      assert.ok(
        fs.readFileSync(file, 'utf8').includes(b.code),
        `${where(b)}: the block is no longer a verbatim part of ${b.marker.file}`,
      );
      tally.excerpts++;
      continue;
    }
    if (b.marker?.kind === 'output-of-background') {
      assert.ok(
        backgroundLog,
        `${where(b)}: output-of: background, but no block of the page runs in the background before it`,
      );
      // Each line as a pattern in which ids and numbers may be this run's own.
      for (const line of b.code.split('\n').filter((l) => l.trim())) {
        const pattern = line
          .trim()
          .replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
          .replace(/[0-9a-f]{32}|\d+/g, (id) => (id.length === 32 ? '[0-9a-f]{32}' : '[0-9]+'));
        lines.push(
          `echo "@@block ${where(b)}" >&2`,
          `for i in $(seq 1 300); do grep -qE ${shellQuote(pattern)} ${JSON.stringify(backgroundLog)} && break; sleep 0.1; done`,
          `grep -E ${shellQuote(pattern)} ${JSON.stringify(backgroundLog)}`,
        );
      }
      count('output of a background block');
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
      backgroundLog = log;
      lines.push(`{\n${code}\n} >${JSON.stringify(log)} 2>&1 &`);
      if (b.marker.port !== null) {
        const port = s.ports[b.marker.port] ?? b.marker.port;
        // The page goes on once the server listens (bash's /dev/tcp: no other tool needed).
        // It fails at once when the server exited instead.
        lines.push(
          `server=$!`,
          `until (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null; do kill -0 $server; sleep 0.1; done`,
        );
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
      fs.writeFileSync(
        file,
        runner === 'php' && !b.code.trimStart().startsWith('<?php') ? `<?php\n${code}\n` : `${code}\n`,
      );
      lines.push(`${RUNTIMES[runner]} ${JSON.stringify(file)}`);
    }
    ran.push(b);
    count(b.lang);
  }
  if (setsReaderVariables)
    lines.push(
      `for v in ${READER_VARIABLES.join(' ')}; do printf 'export %s=%q\\n' "$v" "\${!v}"; done > ${JSON.stringify(s.state)}`,
    );
  return { script: `${lines.join('\n')}\n`, ran };
}

/** Runs a script in its own process group, which is ended afterwards (background blocks with it). */
async function runScript(
  file: string,
  cwd: string,
  timeoutMs: number,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', [file], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? os.tmpdir(), LANG: 'C.UTF-8' },
  });
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

describe('the documentation, run as a reader runs it, against a fresh gateway process', { timeout: 600_000 }, () => {
  let gw: GatewayProcess;
  const session: Session = { cwd: '', ports: {}, state: '' };
  before(async () => {
    session.cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-reader-'));
    for (const entry of fs.readdirSync(ROOT))
      if (!NOT_LINKED.has(entry)) fs.symlinkSync(path.join(ROOT, entry), path.join(session.cwd, entry));
    fs.mkdirSync(path.join(session.cwd, 'data'));
    // The test runner's PGlite template is what `npm start`'s first start makes of an empty data
    // directory (initialised and migrated, nothing else): copied, it saves an initdb that took over
    // two minutes on two saturated cores. The gateway's bootstrap still writes the admin token and
    // the demo merchant, as on a first start.
    if (fs.existsSync(PGLITE_TEMPLATE))
      fs.cpSync(PGLITE_TEMPLATE, path.join(session.cwd, 'data', 'pglite'), { recursive: true });
    session.state = path.join(session.cwd, '.reader-variables.sh');
    const gatewayPort = await freePort();
    session.ports = { [DOCUMENTED_PORTS.gateway]: gatewayPort, [DOCUMENTED_PORTS.callbacks]: await freePort() };
    // What `npm start` runs, on a data directory of its own (never ./data): the sandbox writes the
    // admin token and the demo merchant there on its first start.
    gw = await startGatewayProcess(
      {
        KARIBCHE_MODE: 'sandbox',
        KARIBCHE_DATA_DIR: path.join(session.cwd, 'data'),
        PORT: String(gatewayPort),
        HOST: '127.0.0.1',
        KARIBCHE_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
        KARIBCHE_ADMIN_TOKEN: '',
        DATABASE_URL: '',
        LOG_LEVEL: 'warn',
      },
      { timeoutMs: 240_000 },
    );
  });
  after(async () => {
    await gw?.kill('SIGTERM');
    // The reader's directory: its links go (never what they point to), with the gateway's data.
    if (session.cwd) fs.rmSync(session.cwd, { recursive: true, force: true });
    const runs = [...tally.run].map(([lang, n]) => `${n} ${lang}`).join(', ');
    console.log(
      `# docs blocks run: ${[...tally.run.values()].reduce((a, b) => a + b, 0)} (${runs}); shown only (json, text, http, ini): ${tally.shown}; excerpts checked against their file: ${tally.excerpts}`,
    );
    console.log(`# marked not-run: ${tally.notRun.length}\n${tally.notRun.map((r) => `#   ${r}`).join('\n')}`);
    if (tally.skipped.length)
      console.log(
        `# skipped (runtime missing): ${tally.skipped.length}\n${tally.skipped.map((r) => `#   ${r}`).join('\n')}`,
      );
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
      const background = fs
        .readdirSync(dir)
        .filter((f) => f.startsWith('background-'))
        .map((f) => `\n--- ${f}\n${fs.readFileSync(path.join(dir, f), 'utf8').slice(-2000)}`);
      assert.equal(
        r.status,
        0,
        `${page}: block ${failed} failed (exit ${r.status})\n--- stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}${background.join('')}`,
      );
    });
  }

  // Last, as on the docs site: the reference after the guides and the other pages. A reader per
  // language, one after the other: the reference's clock example moves the sandbox clock for every
  // merchant, so a reader running beside it found its fresh payment expired (a full run's failure).
  describe('the API reference (/docs/api): every example request, in the order of the page', { concurrency: 1 }, () => {
    const ref = { base: '', operations: [] as ReferenceOperation[], servedPage: '', adminToken: '' };
    let rx: Receiver | undefined;
    before(async () => {
      ref.base = `http://127.0.0.1:${session.ports[DOCUMENTED_PORTS.gateway]}`;
      const doc = (await (await fetch(`${ref.base}/openapi.json`)).json()) as OpenApiDocument;
      ref.operations = buildReference(doc).flatMap((g) => g.operations);
      // The page the reader reads is built from the same model: every snippet the test runs is on it.
      ref.servedPage = await (await fetch(`${ref.base}/docs/api.md`)).text();
      ref.adminToken = fs.readFileSync(path.join(session.cwd, 'data', 'admin-token'), 'utf8').trim();
      // The callback address of the examples (the quick start's endpoint) answers during the run.
      rx = await new Receiver().start(session.ports[DOCUMENTED_PORTS.callbacks]);
    });
    after(() => rx?.stop());

    for (const lang of ['curl', 'node', 'php'] as const) {
      const missing = lang === 'php' ? missingRuntime('php') : null;
      if (missing) tally.skipped.push(`/docs/api PHP examples: ${missing}`);
      it(`in ${lang}`, { timeout: 240_000, skip: missing ?? false }, async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), `karibche-reference-${lang}-`));
        // A merchant of this reader's own, set up like the demo merchant (the examples'
        // Idempotency-Keys would replay another reader's answers).
        const reader = await ReferenceReader.create(
          ref.base,
          ref.adminToken,
          withPorts(CALLBACK_URL, session.ports),
          lang,
        );
        for (const op of ref.operations) {
          const snippet = op.snippets[lang];
          assert.ok(ref.servedPage.includes(snippet), `${op.id}: the ${lang} example is not on the served page`);
          const notRun = REFERENCE_NOT_RUN[op.id];
          if (notRun) {
            if (lang === 'curl') tally.notRun.push(`/docs/api ${op.method} ${op.path} (curl, Node, PHP): ${notRun}`);
            continue;
          }
          const variables = { ...reader.variables(), ...(await reader.pathVariables(op)) };
          const answer = await runSnippet(lang, withPorts(snippet, session.ports), variables, dir, session.cwd);
          count(`/docs/api ${lang}`);
          if (answer !== null && op.response?.example !== undefined)
            sameShape(answer, op.response.example, `${lang} ${op.method} ${op.path}`);
          await reader.after(op, answer);
        }
      });
    }
  });
});

/**
 * Reference examples the test does not run, each with its reason (printed with the count). The
 * remedy for most is a real example in the route's schema instead of one generated from it.
 */
const REFERENCE_NOT_RUN: Record<string, string> = {
  'get-v1-gateway-events-stream': 'a server-sent event stream never ends (src/api/routes/events.test.ts reads it)',
  'post-admin-v1-merchants-clientid-users':
    'its body is generated from the schema ("string" is no e-mail address): no example of its own yet',
  'post-sandbox-v1-callbacks-conformance':
    'its body is generated from the schema ("string" is no URL): no example of its own yet',
  'get-sandbox-v1-callbacks-conformance-runid': 'needs a finished conformance run (src/sandbox/conformance.test.ts)',
};

const camelName = (curlName: string) => curlName.toLowerCase().replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/**
 * Runs one example as a reader would: curl in bash with the variables set, the Node and PHP ones
 * after lines that set theirs. Fails on an HTTP error; answers the parsed JSON (null: no body).
 */
async function runSnippet(
  lang: 'curl' | 'node' | 'php',
  snippet: string,
  vars: Record<string, string>,
  dir: string,
  cwd: string,
): Promise<unknown> {
  const run = async (cmd: string, args: string[], env: Record<string, string> = {}) => {
    try {
      const { stdout } = await promisify(execFile)(cmd, args, {
        cwd,
        encoding: 'utf8',
        timeout: 30_000,
        env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? os.tmpdir(), ...env },
      });
      return stdout.trim();
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${lang} example failed:\n${snippet}\n--- output\n${e.stdout ?? ''}\n${e.stderr ?? e.message}`);
    }
  };
  let out: string;
  if (lang === 'curl') {
    out = await run(
      'bash',
      ['-c', `set -euo pipefail\ncurl() { command curl -sS --fail-with-body "$@"; }\n${snippet}`],
      vars,
    );
  } else if (lang === 'node') {
    const file = path.join(dir, 'example.mjs');
    const declarations = Object.entries(vars)
      .map(([k, v]) => `const ${camelName(k)} = ${JSON.stringify(v)};`)
      .join('\n');
    fs.writeFileSync(
      file,
      `${declarations}\n${snippet}\nif (!res.ok) { console.error(res.status, JSON.stringify(answer)); process.exit(1); }\nconsole.log(JSON.stringify(answer));\n`,
    );
    out = await run(process.execPath, [file]);
  } else {
    const file = path.join(dir, 'example.php');
    const declarations = Object.entries(vars)
      .map(([k, v]) => `$${camelName(k)} = ${JSON.stringify(v)};`)
      .join('\n');
    const check = `if (!preg_match('#^HTTP/\\S+ 2\\d\\d#', $http_response_header[0])) { fwrite(STDERR, $http_response_header[0] . "\\n" . json_encode($answer)); exit(1); }\necho json_encode($answer), "\\n";`;
    fs.writeFileSync(file, snippet.replace('<?php\n', `<?php\n${declarations}\n`) + `\n${check}\n`);
    out = await run('php', [file]);
  }
  return out && out !== 'null' ? JSON.parse(out) : null;
}

/** A reader of the reference: their merchant, their variables, and what each example needs before it runs. */
class ReferenceReader {
  private token = '';
  private constructor(
    private readonly base: string,
    private readonly adminToken: string,
    /** The examples' callback address (the quick start's endpoint), at this run's port. */
    private readonly callbackUrl: string,
    private credentials: { clientId: string; clientSecret: string; apiKey: string; callbackSecret: string },
  ) {}

  static async create(base: string, adminToken: string, callbackUrl: string, name: string): Promise<ReferenceReader> {
    const created = await call(
      base,
      'POST',
      '/admin/v1/merchants',
      { authorization: `Bearer ${adminToken}` },
      { ...DEMO_SETTINGS, name: `Reader in ${name}` },
    );
    const reader = new ReferenceReader(base, adminToken, callbackUrl, created.credentials);
    await reader.newToken();
    return reader;
  }

  private async newToken(): Promise<void> {
    const c = this.credentials;
    this.token = (
      await call(
        this.base,
        'POST',
        '/v1/gateway/access-token',
        { apikey: c.apiKey },
        { client_id: c.clientId, client_secret: c.clientSecret },
      )
    ).access_token;
  }

  /** The variables the reference's table tells the reader to set. */
  variables(): Record<string, string> {
    const c = this.credentials;
    const values: Record<string, string> = {
      BASE: this.base,
      API_KEY: c.apiKey,
      CLIENT_ID: c.clientId,
      CLIENT_SECRET: c.clientSecret,
      CALLBACK_SECRET: c.callbackSecret,
      TOKEN: this.token,
      ADMIN_TOKEN: this.adminToken,
    };
    assert.deepEqual(
      Object.keys(values).sort(),
      [...READER_VARIABLES].sort(),
      'the reference names the variables this reader sets',
    );
    return values;
  }

  private merchant = () => ({ apikey: this.credentials.apiKey, authorization: `Bearer ${this.token}` });

  private async payment(extra: Record<string, unknown> = {}, pay = true): Promise<string> {
    const created = await call(this.base, 'POST', '/v1/gateway/payments', this.merchant(), {
      amount: { currency: 'GEL', total: 100 },
      returnurl: 'https://shop.example/return',
      ...extra,
    });
    if (pay)
      await call(
        this.base,
        'POST',
        `/sandbox/v1/payments/${created.payId}/simulate`,
        { authorization: `Bearer ${this.adminToken}` },
        { method: 5, card: '4111111111111111' },
      );
    return created.payId;
  }

  private async savedCard(): Promise<string> {
    const payId = await this.payment({ saveCard: true });
    return (await call(this.base, 'GET', `/v1/gateway/payments/${payId}`, this.merchant())).recurringCard.recId;
  }

  /** Until the payment's latest callback is delivered or failed (the callback endpoint of the examples answers 200). */
  private async callbackSettled(payId: string): Promise<void> {
    await waitUntil(`the callback of ${payId} delivered or failed`, async () => {
      const { callbacks } = await call(this.base, 'GET', `/v1/gateway/payments/${payId}/callbacks`, this.merchant());
      return ['delivered', 'failed', 'undeliverable'].includes(callbacks.at(-1)?.status);
    });
  }

  /** The path parameters (and a body's recId) of an operation: what the reader has at hand when they run it. */
  async pathVariables(op: ReferenceOperation): Promise<Record<string, string>> {
    const needs = new Set([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!));
    if (op.snippets.curl.includes('$REC_ID')) needs.add('recId');
    const vars: Record<string, string> = {};
    if (needs.has('payId')) {
      // simulate pays a new payment; completion captures a pre-authorised one; the rest act on a paid one.
      vars.PAY_ID = op.path.endsWith('/simulate')
        ? await this.payment({}, false)
        : await this.payment(op.path.endsWith('/completion') ? { preAuth: true } : { callbackUrl: this.callbackUrl });
    }
    // A reader redelivers a callback that was delivered (or failed), not one on its way: wait for it.
    if (vars.PAY_ID && op.path.endsWith('/callbacks/redeliver')) await this.callbackSettled(vars.PAY_ID);
    if (needs.has('recId')) vars.REC_ID = await this.savedCard();
    if (needs.has('id')) vars.ID = (await call(this.base, 'POST', '/v1/gateway/api-keys', this.merchant())).id;
    for (const name of needs)
      assert.ok(
        name === 'clientId' || vars[name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()],
        `${op.id}: no value for {${name}}`,
      );
    return vars;
  }

  /** What a reader does after an example that changed their credentials: keep the new ones, get a new token. */
  async after(op: ReferenceOperation, answer: unknown): Promise<void> {
    const secret = (answer as { clientSecret?: string } | null)?.clientSecret;
    if (secret && op.path.includes('/client-secret')) this.credentials = { ...this.credentials, clientSecret: secret };
    if (op.path.startsWith('/admin/')) await this.newToken();
  }
}

async function call(
  base: string,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<any> {
  const res = await fetch(base + url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
