// The docs site as a reader (and a tool) meets it: every Markdown file under docs/ is a page with
// its CSP and no external URL, reachable from the docs home, with a Markdown twin; every link
// between pages resolves, anchors included; the OpenAPI document is valid OpenAPI 3.1; the Postman
// collection loads in Postman's own SDK with one request per operation; llms.txt lists every guide;
// the reference shows every operation with its examples; generated files are current.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import postman from 'postman-collection';
import { BACKENDS } from '../testing/databases.ts';
import { useGateway } from '../testing/harness.ts';
import { stateDiagramSvg } from './diagram.ts';
import { docsDirectory, loadPages } from './files.ts';
import { DOCS_CSP, DOCS_JS_PATH } from './layout.ts';
import { withBase } from './own-address.ts';
import { POSTMAN_SCHEMA } from './postman.ts';

const { Collection } = postman;
const DOCS = path.resolve('docs');
const pages = loadPages(DOCS);

/**
 * Documents that other work in progress adds to docs/ and that these docs already link to. While
 * one is missing from this tree a link to it is reported (not failed); once it exists, its links
 * are checked like every other. Remove an entry when its file has landed.
 */
const ARRIVING = new Set<string>();
const arriving = (docsPath: string) => ARRIVING.has(docsPath) && !fs.existsSync(path.join(DOCS, docsPath));

/** Hosts a page may load from: the gateway itself, loopback (the examples' BASE) and reserved example domains. */
const OWN_HOSTS = /^(gateway\.test|127\.0\.0\.1(:\d+)?|localhost(:\d+)?|([a-z0-9-]+\.)*example(:\d+)?)$/;
/**
 * Hosts the page would make the browser fetch from: `src`/`srcset`/`poster`, a `<link href>`, a
 * form's `action`, CSS `url()`/`@import`. A reference to another site in the text or a plain link
 * (the bank's error `type` URL, a specification) fetches nothing, and the CSP would block a fetch.
 */
const externalUrls = (html: string) =>
  [
    ...html.matchAll(/\s(?:src|srcset|poster|action)="\s*(?:https?:)?\/\/([a-z0-9.-]+(?::\d+)?)/gi),
    ...html.matchAll(/<link\b[^>]*\shref="\s*(?:https?:)?\/\/([a-z0-9.-]+(?::\d+)?)/gi),
    ...html.matchAll(/(?:url\(\s*['"]?|@import\s+['"])(?:https?:)?\/\/([a-z0-9.-]+(?::\d+)?)/gi),
  ]
    .map((m) => m[1]!)
    .filter((h) => !OWN_HOSTS.test(h.toLowerCase()));

const ids = (html: string) => new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
const hrefs = (html: string) => [...html.matchAll(/\shref="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

describe('docs files', () => {
  it('every relative link in docs/ and the README points to a file that exists (and an anchor that exists)', () => {
    const sources = [
      ...pages.map((p) => ({ file: p.file, base: path.dirname(p.file) })),
      { file: path.resolve('README.md'), base: path.resolve('.') },
    ];
    const problems: string[] = [];
    const pending: string[] = [];
    let checked = 0;
    for (const { file, base } of sources) {
      const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith('#') || target!.startsWith('/')) continue;
        const [rel, hash] = target!.split('#') as [string, string | undefined];
        const abs = path.resolve(base, decodeURI(rel));
        const docsPath = path.relative(DOCS, abs);
        checked++;
        if (!fs.existsSync(abs)) {
          if (arriving(docsPath)) pending.push(`${path.relative('.', file)} → ${rel}`);
          else problems.push(`${path.relative('.', file)}: ${target} (no such file)`);
          continue;
        }
        // Anchors are checked on the rendered pages, where the heading ids are (the crawl below).
        if (hash && abs.endsWith('.md') && !pages.some((p) => p.file === abs))
          problems.push(`${path.relative('.', file)}: ${target} (not a page)`);
      }
    }
    if (pending.length)
      console.log(
        `# links to documents not in this tree yet (${[...ARRIVING].filter((f) => arriving(f)).join(', ')}):\n#   ${pending.join('\n#   ')}`,
      );
    assert.ok(checked > 60, `only ${checked} links checked`);
    assert.deepEqual(problems, []);
  });

  it('the payment state diagram is the one drawn from the state machine (npm run docs:diagram)', () => {
    assert.equal(fs.readFileSync(path.join(DOCS, 'guides/payment-states.svg'), 'utf8'), stateDiagramSvg());
  });

  it('the code in the callback guides is the code of the tested samples, verbatim', () => {
    const samples: Record<string, string> = {
      js: fs.readFileSync(path.join(DOCS, 'guides/samples/callback.mjs'), 'utf8'),
      php: fs.readFileSync(path.join(DOCS, 'guides/samples/callback.php'), 'utf8'),
      python: fs.readFileSync(path.join(DOCS, 'guides/samples/callback.py'), 'utf8'),
    };
    for (const guide of ['callbacks.md', 'callbacks.ka.md']) {
      const text = fs.readFileSync(path.join(DOCS, 'guides', guide), 'utf8');
      const blocks = [...text.matchAll(/```(js|php|python)\n([\s\S]*?)```/g)].filter(
        ([, , code]) => !code!.includes('standardwebhooks'),
      );
      assert.equal(blocks.length, 3, `${guide}: one block per language`);
      for (const [, lang, code] of blocks)
        assert.ok(samples[lang!]!.includes(code!.trimEnd()), `${guide}: the ${lang} block is not in the sample`);
    }
  });

  it('finds the repository docs from the sources (the bundle finds its own copy)', () => {
    assert.equal(docsDirectory(), DOCS);
    assert.ok(
      pages.some((p) => p.slug === 'guides/quickstart') && pages.some((p) => p.slug === 'guides/quickstart.ka'),
    );
  });
});

/** The page without its one script tag (docs.js, our own); asserts that it is there, once. */
function withoutDocsScript(html: string): string {
  const tag = `<script src="${DOCS_JS_PATH}" defer></script>`;
  assert.equal(html.split(tag).length, 2, 'the docs script, once');
  return html.replace(tag, '');
}

for (const backend of BACKENDS) {
  describe(`docs site [${backend}]`, () => {
    const ctx = useGateway(backend);
    const get = (url: string) => ctx.t.app.inject(url);

    it('serves the search index (every page and every operation of the reference, as plain text) and the docs script', async () => {
      const res = await get('/docs/search.json');
      assert.equal(res.statusCode, 200);
      const index = res.json() as { url: string; title: string; headings: string[]; text: string }[];
      for (const p of pages)
        assert.ok(
          index.some((e) => e.url === `/docs/${p.slug}` && e.title === p.title),
          `${p.slug} is not in the index`,
        );
      assert.ok(
        index.some((e) => e.url === '/docs/api#post-v1-gateway-payments' && e.title === 'POST /v1/gateway/payments'),
      );
      const quickstart = index.find((e) => e.url === '/docs/guides/quickstart')!;
      assert.ok(quickstart.headings.includes('4. Create a payment'));
      assert.match(quickstart.text, /Idempotency-Key: order-1002/);
      assert.doesNotMatch(quickstart.text, /<\/?[a-z]+[ >]/, 'no markup');
      const js = await get('/docs/assets/docs.js');
      assert.equal(js.statusCode, 200);
      assert.match(String(js.headers['content-type']), /^text\/javascript/);
    });

    it('serves every Markdown file under docs/ as a page with its CSP, only the docs script, no inline style and no external URL, and as Markdown', async () => {
      assert.ok(pages.length >= 18, `${pages.length} pages`);
      for (const p of pages) {
        const res = await get(`/docs/${p.slug}`);
        assert.equal(res.statusCode, 200, p.slug);
        assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
        assert.equal(res.headers['content-security-policy'], DOCS_CSP);
        assert.equal(res.headers['x-frame-options'], 'DENY');
        assert.doesNotMatch(
          withoutDocsScript(res.body),
          /<script|\sstyle=|<style|\son[a-z]+=/i,
          `${p.slug}: script or inline style`,
        );
        assert.deepEqual(externalUrls(res.body), [], `${p.slug}: external URL`);
        assert.match(res.body, new RegExp(`<html lang="${p.lang}"`));
        const md = await get(`/docs/${p.slug}.md`);
        assert.equal(md.statusCode, 200);
        assert.match(String(md.headers['content-type']), /^text\/markdown; charset=utf-8/);
        // The file as written, naming this gateway where it says the default sandbox's address.
        assert.equal(md.body, withBase(fs.readFileSync(p.file, 'utf8'), 'http://gateway.test'));
      }
      for (const url of ['/docs', '/docs/api', '/docs/errors']) {
        const res = await get(url);
        assert.equal(res.statusCode, 200, url);
        assert.equal(res.headers['content-security-policy'], DOCS_CSP, url);
        assert.doesNotMatch(withoutDocsScript(res.body), /<script|\sstyle=|<style/i, url);
        assert.deepEqual(externalUrls(res.body), [], `${url}: external URL`);
      }
      const missing = await get('/docs/no-such-page');
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().systemCode, 'system.404.004');
      assert.equal((await get('/docs/../package.json')).statusCode, 404, 'nothing outside docs/');
    });

    it('links every page from the docs home and every page’s navigation; every internal link and anchor resolves', async () => {
      const home = (await get('/docs')).body;
      for (const p of pages) assert.ok(home.includes(`href="/docs/${p.slug}"`), `the home does not link ${p.slug}`);
      // Crawl every page reachable from the home, as a reader clicking around would.
      const seen = new Map<string, string>();
      const queue = ['/docs'];
      const broken: string[] = [];
      const pending = new Set<string>();
      const links: [string, string][] = [];
      while (queue.length) {
        const url = queue.shift()!;
        if (seen.has(url)) continue;
        const res = await get(url);
        if (res.statusCode !== 200) {
          const file = `${url.replace(/^\/docs\//, '')}.md`;
          if (arriving(file)) pending.add(file);
          else broken.push(`${url} answers ${res.statusCode}`);
          seen.set(url, '');
          continue;
        }
        seen.set(url, res.body);
        if (!/text\/html/.test(String(res.headers['content-type']))) continue;
        for (const href of hrefs(res.body)) {
          if (/^[a-z]+:/i.test(href)) continue;
          const target = href.startsWith('#') ? `${url}${href}` : href;
          links.push([url, target]);
          const [pathOnly] = target.split('#') as [string];
          if (!seen.has(pathOnly) && !queue.includes(pathOnly)) queue.push(pathOnly);
        }
      }
      for (const [from, target] of links) {
        const [pathOnly, anchor] = target.split('#') as [string, string | undefined];
        const body = seen.get(pathOnly);
        if (anchor && body && !ids(body).has(decodeURIComponent(anchor)))
          broken.push(`${from} → ${target}: no such anchor`);
      }
      if (pending.size) console.log(`# not in this tree yet, linked from the site: ${[...pending].join(', ')}`);
      assert.ok(seen.size > pages.length, `crawled ${seen.size} URLs`);
      assert.ok(links.length > 500, `${links.length} links`);
      assert.deepEqual(broken, []);
    });

    it('serves /openapi.json as a valid OpenAPI 3.1 document with credentials and examples', async () => {
      const spec = (await get('/openapi.json')).json();
      const result = await new Validator().validate(spec);
      assert.deepEqual(result.errors ?? [], []);
      assert.equal(result.valid, true);
      assert.equal(spec.openapi, '3.1.0');
      const create = spec.paths['/v1/gateway/payments'].post;
      assert.deepEqual(create.security, [{ apikey: [], bearer: [] }]);
      assert.equal(create['x-karibche-operation'], 'create-payment');
      assert.deepEqual(create.requestBody.content['application/json'].example.amount, {
        currency: 'GEL',
        total: '25.40',
      });
      assert.deepEqual(spec.paths['/v1/gateway/access-token'].post.security, [{ apikey: [] }]);
      assert.deepEqual(spec.paths['/admin/v1/merchants'].post.security, [{ admin: [] }]);
      assert.deepEqual(spec.paths['/sandbox/v1/clock'].get.security, [{ admin: [] }]);
      for (const [p, item] of Object.entries<Record<string, { security?: unknown }>>(spec.paths)) {
        for (const [method, op] of Object.entries(item))
          assert.ok(op.security, `${method} ${p} declares no credentials`);
      }
    });

    it('renders the API reference: every operation with required headers, curl/PHP/Node examples and a response', async () => {
      const spec = (await get('/openapi.json')).json();
      const html = (await get('/docs/api')).body;
      const md = (await get('/docs/api.md')).body;
      const anchors = ids(html);
      let operations = 0;
      for (const [p, item] of Object.entries<Record<string, unknown>>(spec.paths)) {
        for (const method of Object.keys(item)) {
          operations++;
          const id = `${method}-${p}`
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/-$/, '');
          assert.ok(anchors.has(id), `no section ${id}`);
          const section = html.slice(
            html.indexOf(`<section class="op" id="${id}"`),
            html.indexOf('</section>', html.indexOf(`id="${id}"`)),
          );
          assert.match(section, /Required headers:/, id);
          assert.match(
            section,
            /<summary>curl<\/summary>[\s\S]*<summary>PHP<\/summary>[\s\S]*<summary>Node<\/summary>/,
            id,
          );
          assert.match(section, /<h4>Response \d{3}<\/h4>/, id);
          assert.ok(md.includes(`### ${method.toUpperCase()} ${p}\n`), `markdown twin lacks ${method} ${p}`);
        }
      }
      assert.ok(operations >= 25, `${operations} operations`);
      // The create example is the schema's own (a real sandbox payment), not a generated placeholder.
      const create = html.slice(html.indexOf('id="post-v1-gateway-payments"'));
      assert.match(create, /Authorization: Bearer &lt;access token&gt;/);
      assert.match(create, /Idempotency-Key/);
      assert.match(create, /&quot;total&quot;: &quot;25.40&quot;/);
      assert.match(create, /approval_url/);
      assert.match(create, /href="\/docs\/errors#create-payment\.400\.021"/);
    });

    it('serves a Postman v2.1 collection with one request per operation that Postman’s SDK reads', async () => {
      const res = await get('/docs/postman.json');
      assert.equal(res.statusCode, 200);
      const json = res.json();
      assert.equal(json.info.schema, POSTMAN_SCHEMA);
      assert.ok(Collection.isCollection(new Collection(json)));
      const collection = new Collection(json);
      const spec = (await get('/openapi.json')).json();
      const expected = Object.entries<Record<string, unknown>>(spec.paths)
        .flatMap(([p, item]) =>
          Object.keys(item).map((m) => `${m.toUpperCase()} /${p.replace(/^\//, '').replace(/\{(\w+)\}/g, ':$1')}`),
        )
        .sort();
      const got: string[] = [];
      collection.forEachItem((item) => {
        got.push(`${item.request.method} /${item.request.url.path!.join('/')}`);
        assert.ok(item.responses.count() >= 1, `${item.name}: no example response`);
      });
      assert.deepEqual(got.sort(), expected);
      // Credentials and path parameters are collection variables; the token request stores its token.
      const keys = json.variable.map((v: { key: string }) => v.key);
      for (const k of ['baseUrl', 'apiKey', 'clientId', 'clientSecret', 'token', 'adminToken', 'payId', 'recId'])
        assert.ok(keys.includes(k), k);
      assert.equal(collection.variables.get('baseUrl'), 'http://gateway.test');
      const token = json.item
        .flatMap((f: { item: unknown[] }) => f.item)
        .find((i: { name: string }) => i.name === 'Get an access token');
      assert.match(token.event[0].script.exec[0], /pm\.collectionVariables\.set\('token'/);
      assert.deepEqual(JSON.parse(token.request.body.raw), {
        client_id: '{{clientId}}',
        client_secret: '{{clientSecret}}',
      });
      // The round trip through the SDK keeps every request.
      assert.equal(JSON.stringify(collection.toJSON()).match(/"method":/g)!.length >= expected.length, true);
    });

    it('serves /llms.txt listing every guide and every other document, each link a Markdown file that answers', async () => {
      const res = await get('/llms.txt');
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      assert.match(res.body, /^# Karibche\n\n> /);
      const listed = [...res.body.matchAll(/\]\((http:\/\/gateway\.test)?([^)]+)\)/g)].map((m) => m[2]!);
      for (const p of pages) assert.ok(listed.includes(`/docs/${p.slug}.md`), `llms.txt lacks ${p.slug}`);
      for (const url of listed) assert.equal((await get(url)).statusCode, 200, url);
      assert.ok(
        listed.includes('/docs/api.md') && listed.includes('/openapi.json') && listed.includes('/docs/postman.json'),
      );
    });
  });
}
