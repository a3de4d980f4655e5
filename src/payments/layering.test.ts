// The payment domain knows nothing of HTTP: no web framework, no import from the layers that speak
// HTTP, and no merchant-API operation name (the api layer maps use cases to its operations).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OPERATIONS } from '../errors/catalogue.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const DOMAIN = ['payments', 'callbacks', 'acquirer', 'idempotency'];
const HTTP_LAYERS = ['api', 'checkout', 'dashboard', 'admin', 'sandbox', 'html'];

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The code of a file without its comments (a comment may name the API it is used by). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe('the domain does not speak HTTP', () => {
  const files = DOMAIN.flatMap(sources);

  it('imports no web framework and nothing from the HTTP layers', () => {
    assert.ok(files.length > 20, `found ${files.length} domain files`);
    const layers = new RegExp(`from '(?:\\.\\./)+(?:${HTTP_LAYERS.join('|')})/|from '(?:fastify|@fastify/[^']+)'`);
    const offenders = files.filter((f) => layers.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it('names no merchant-API operation (cancel-payment, …) in its code', () => {
    const names = OPERATIONS.filter((o) => o.includes('-'));
    const quoted = new RegExp(`['"\`](?:${names.join('|')})['"\`]`);
    const offenders = files.filter((f) => quoted.test(code(readFileSync(f, 'utf8')))).map((f) => f.slice(ROOT.length));
    assert.deepEqual(offenders, []);
  });
});

// SQL lives in store modules (src/store/, store.ts, *-store.ts), one function per statement, so a
// reader finds a table's statements in one place and the domain reads as rules (issue 27).
describe('SQL only in store modules', () => {
  const isStore = (f: string) => f.startsWith('store/') || /(^|\/)(store|[\w-]+-store)\.ts$/.test(f);
  // Modules whose SQL stays theirs, each with why; and the test-only helpers of src/testing/ (the
  // suites of test/ are outside src/).
  const ALLOWED: Record<string, string> = {
    'acquirer/simulator.ts': 'the simulated bank: its own tables are its state, not the gateway’s',
    'ops/routes.ts': 'the readiness probe’s SELECT 1 reads no table',
  };
  const TEST_ONLY = ['testing/'];
  const SQL = /\.(?:query|exec)(?:<[^>]*>)?\(\s*[`'"]\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP|LOCK)\b/i;

  it('no other module runs a SQL statement', () => {
    const files = readdirSync(ROOT, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
      .map((e) => join(e.parentPath, e.name).slice(ROOT.length));
    assert.ok(files.length > 100, `found ${files.length} source files`);
    const offenders = files.filter(
      (f) =>
        !isStore(f) &&
        !(f in ALLOWED) &&
        !TEST_ONLY.some((d) => f.startsWith(d)) &&
        SQL.test(code(readFileSync(join(ROOT, f), 'utf8'))),
    );
    assert.deepEqual(offenders, []);
  });

  it('the exceptions still run SQL (an exception no longer needed is dropped)', () => {
    const stale = Object.keys(ALLOWED).filter((f) => !SQL.test(code(readFileSync(join(ROOT, f), 'utf8'))));
    assert.deepEqual(stale, []);
  });
});

// The HTTP layers translate requests to use cases (issue 27): a route module (one that speaks
// Fastify) calls the domain's functions, never a store module's statements; the database's error
// predicates and types (store/db.ts) are no statements.
describe('HTTP layers call use cases, not store modules', () => {
  const isStore = (m: string) =>
    (/(^|\/)(store|[\w-]+-store)\.ts$/.test(m) || m.startsWith('store/')) && m !== 'store/db.ts';
  // Route module → store module it may read, with why.
  const ALLOWED: Record<string, string> = {
    'dashboard/routes.ts -> store/secrets.ts':
      'the secret every process shares for the dashboard’s tokens: infrastructure, not data',
    'admin/auth.ts -> store/settings.ts': 'the admin token’s hash is a setting of the installation',
  };
  const storeImports = () =>
    HTTP_LAYERS.flatMap(sources).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      if (!/from 'fastify'/.test(text)) return [];
      const rel = file.slice(ROOT.length);
      return [...text.matchAll(/import\s+(?!type\b)\{([^}]*)\}\s+from\s+'(\.[^']+)'/g)]
        .filter((m) => m[1]!.split(',').some((n) => n.trim() && !n.trim().startsWith('type ')))
        .map((m) => `${rel} -> ${join(rel, '..', m[2]!)}`)
        .filter((edge) => isStore(edge.split(' -> ')[1]!));
    });

  it('no route module imports a store function', () => {
    const found = storeImports();
    assert.ok(HTTP_LAYERS.flatMap(sources).length > 40);
    assert.deepEqual(
      found.filter((edge) => !(edge in ALLOWED)),
      [],
    );
  });

  it('the exceptions are still needed', () => {
    const found = new Set(storeImports());
    assert.deepEqual(
      Object.keys(ALLOWED).filter((edge) => !found.has(edge)),
      [],
    );
  });
});
