// What a new user meets first on a gateway that is not the default one (issue 26): the served docs
// name this gateway's address (not http://127.0.0.1:8080), environment variable names keep their
// underscores in every index, and `GET /` leads somewhere (a page for a person, JSON for a tool).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { useGateway } from '../testing/harness.ts';
import { docsDirectory, loadPages, plainText } from './files.ts';

const pages = loadPages(docsDirectory());
/** Every environment variable name the docs mention, e.g. KARIBCHE_MODE. */
const envNames = [
  ...new Set(pages.flatMap((p) => [...p.markdown.matchAll(/\b(KARIBCHE(?:_[A-Z0-9]+)+)\b/g)].map((m) => m[1]!))),
];

describe('plainText (the docs indexes’ summaries)', () => {
  it('keeps underscores inside names and code spans, drops emphasis marks', () => {
    assert.equal(
      plainText('Set `KARIBCHE_MODE` and KARIBCHE_URL, *not* _this_ or **that**.'),
      'Set KARIBCHE_MODE and KARIBCHE_URL, not this or that.',
    );
    assert.equal(plainText('`a*b` __strong__ snake_case'), 'a*b strong snake_case');
  });
});

for (const backend of BACKENDS) {
  describe(`served docs on a gateway elsewhere [${backend}]`, () => {
    const ctx = useGateway(backend, { KARIBCHE_PUBLIC_URL: 'https://sandbox.shop.example:8443' });
    const get = (url: string, headers: Record<string, string> = {}) =>
      ctx.t.app.inject({ method: 'GET', url, headers });

    it('the quick start, its Markdown twin and the README home give BASE as this gateway’s public URL', async () => {
      for (const url of [
        '/docs/guides/quickstart',
        '/docs/guides/quickstart.md',
        '/docs/guides/quickstart.ka',
        '/docs/cli',
        '/llms.txt',
      ]) {
        const body = (await get(url)).body;
        assert.doesNotMatch(body, /127\.0\.0\.1:8080/, url);
      }
      assert.match((await get('/docs/guides/quickstart')).body, /BASE=https:\/\/sandbox\.shop\.example:8443\n/);
      assert.match((await get('/docs/guides/quickstart.md')).body, /BASE=https:\/\/sandbox\.shop\.example:8443\n/);
      assert.match(
        (await get('/llms.txt')).body,
        /\(https:\/\/sandbox\.shop\.example:8443\/docs\/guides\/quickstart\.md\)/,
      );
    });

    it('environment variable names keep their underscores in llms.txt, the docs home and every page', async () => {
      assert.ok(envNames.includes('KARIBCHE_MODE') && envNames.includes('KARIBCHE_URL'), envNames.join(' '));
      const mangled = new RegExp(`\\b(${envNames.map((n) => n.replace(/_/g, '')).join('|')})\\b`);
      const urls = ['/llms.txt', '/docs', ...pages.map((p) => `/docs/${p.slug}`)];
      for (const url of urls) {
        const m = (await get(url)).body.match(mangled);
        assert.equal(m, null, `${url} prints ${m?.[0]}`);
      }
      assert.match((await get('/llms.txt')).body, /KARIBCHE_MODE/);
    });

    it('GET / is a page linking the docs, the dashboard and the API reference', async () => {
      const res = await get('/', { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      for (const href of ['/docs', '/dashboard', '/docs/api'])
        assert.match(res.body, new RegExp(`href="${href}"`), href);
      for (const href of ['/docs', '/dashboard', '/docs/api']) assert.notEqual((await get(href)).statusCode, 404, href);
      assert.equal((await get('/', { accept: '*/*' })).statusCode, 200);
    });

    it('GET / with Accept: application/json is a small JSON index with absolute links', async () => {
      const res = await get('/', { accept: 'application/json' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const index = res.json();
      assert.equal(index.api, 'https://sandbox.shop.example:8443/v1/gateway');
      const hrefs = Object.fromEntries(index.links.map((l: { rel: string; href: string }) => [l.rel, l.href]));
      assert.equal(hrefs.docs, 'https://sandbox.shop.example:8443/docs');
      assert.equal(hrefs.dashboard, 'https://sandbox.shop.example:8443/dashboard');
      assert.equal(hrefs['api-reference'], 'https://sandbox.shop.example:8443/docs/api');
    });
  });

  describe(`served docs on a gateway listening on every address [${backend}]`, () => {
    const ctx = useGateway(backend, { KARIBCHE_PUBLIC_URL: '', HOST: '0.0.0.0', PORT: '9091' });
    const get = (url: string, host: string) => ctx.t.app.inject({ method: 'GET', url, headers: { host } });

    it('names the address the reader used (a plain Host header), else the configured one', async () => {
      assert.match((await get('/docs/guides/quickstart.md', 'gw.lan:9091')).body, /BASE=http:\/\/gw\.lan:9091\n/);
      assert.match((await get('/docs/guides/quickstart.md', 'evil"><script>')).body, /BASE=http:\/\/0\.0\.0\.0:9091\n/);
    });
  });
}
