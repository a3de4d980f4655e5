// The documentation site the gateway serves:
//   /docs                      the home: every guide, the reference, every other document
//   /docs/<page>               a Markdown file under docs/ as a page (docs/guides/x.md → /docs/guides/x)
//   /docs/<page>.md            the same file as it is (the plain twin; llms.txt links these)
//   /docs/api, /docs/api.md    the API reference built from /openapi.json
//   /docs/errors               the error catalogue (problem `type` URLs point here)
//   /docs/postman.json         a Postman collection (v2.1) built from the same reference
//   /openapi.json, /llms.txt
//   /docs/search.json          the search index of the search box (every page and operation)
// Pages are rendered once, when first asked for (the reference needs the finished route table),
// under their own Content-Security-Policy: our stylesheet, images and script, nothing external.
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escape } from '../html/html.ts';
import { DOCS_LANGUAGE, LANGUAGE_INFO, otherLanguages } from '../i18n/languages.ts';
import { errorsBody } from './errors-page.ts';
import { docsDirectory, loadPages, loadStaticFiles, type DocPage } from './files.ts';
import { DOCS_CSP, DOCS_CSS_PATH, DOCS_JS_PATH, REFERENCE_LINKS, SEARCH_INDEX_PATH, page } from './layout.ts';
import { llmsTxt } from './llms.ts';
import { DOCS_DEFAULT_BASE, ownBase, withBase } from './own-address.ts';
import { renderMarkdown } from './markdown.ts';
import { postmanCollection } from './postman.ts';
import { buildReference, type OpenApiDocument } from './reference.ts';
import { referenceHtml, referenceMarkdown } from './reference-render.ts';
import { searchIndex } from './search-index.ts';

const css = fs.readFileSync(new URL('./assets/docs.css', import.meta.url), 'utf8');
const js = fs.readFileSync(new URL('./assets/docs.js', import.meta.url), 'utf8');

function home(pages: DocPage[]): string {
  // A page in the docs' own language lists its translations; a translation is listed alone only
  // when the page it translates does not exist.
  const translated = (p: DocPage) =>
    p.lang !== DOCS_LANGUAGE
      ? ''
      : otherLanguages(p.lang)
          .flatMap((l) => {
            const slug = p.translations[l];
            const info = LANGUAGE_INFO[l];
            return slug
              ? [
                  ` · <a href="/docs/${escape(slug)}" lang="${info.htmlLang}" hreflang="${info.htmlLang}">${escape(info.inLanguage)}</a>`,
                ]
              : [];
          })
          .join('');
  const item = (p: DocPage) =>
    `<li><a href="/docs/${escape(p.slug)}"${p.lang === DOCS_LANGUAGE ? '' : ` lang="${LANGUAGE_INFO[p.lang].htmlLang}"`}>${escape(p.title)}</a>${translated(p)}${p.summary ? `<br><span class="summary">${escape(p.summary)}</span>` : ''}</li>`;
  const guides = pages.filter((p) => p.guide && (p.lang === DOCS_LANGUAGE || !p.translations[DOCS_LANGUAGE]));
  return `<h1>Karibche documentation</h1>
<p>Karibche is a self-hostable e-commerce payment gateway: a merchant creates a payment server to server, the customer pays on the hosted checkout page, the gateway signs a callback to the merchant, and the merchant refunds, completes or charges a saved card later. It runs as a stateful sandbox (nothing to install) and as a multi-process service on PostgreSQL.</p>
<p class="start"><a href="/docs/guides/quickstart">Start with the quick start</a> — your first payment in five minutes · <a href="/docs/guides/quickstart.ka" lang="ka" hreflang="ka">სწრაფი დაწყება ქართულად</a></p>
<h2>Guides</h2><ul class="cards">${guides.map(item).join('')}</ul>
<h2>Reference</h2><ul>${REFERENCE_LINKS.map((r) => `<li><a href="${r.href}">${escape(r.title)}</a></li>`).join('')}</ul>
<h2>More documentation</h2><ul class="cards">${pages
    .filter((p) => !p.guide)
    .map(item)
    .join('')}</ul>`;
}

/** Where a person (or a tool) goes from the gateway's root: what `GET /` lists. */
const FRONT_DOOR = [
  { rel: 'docs', href: '/docs', title: 'Documentation', text: 'guides, starting with the quick start' },
  { rel: 'api-reference', href: '/docs/api', title: 'API reference', text: 'every endpoint with examples' },
  {
    rel: 'dashboard',
    href: '/dashboard',
    title: 'Merchant dashboard',
    text: 'payments, callbacks, request log, settings',
  },
  { rel: 'openapi', href: '/openapi.json', title: 'OpenAPI document', text: 'OpenAPI 3.1' },
  { rel: 'llms', href: '/llms.txt', title: 'llms.txt', text: 'the docs index for language models' },
  { rel: 'health', href: '/healthz', title: 'Health', text: 'liveness; /readyz for readiness' },
];

/** `GET /` for a browser: a small page that says what this is and where to go. */
function frontDoorBody(): string {
  return `<h1>Karibche payment gateway</h1>
<p>This is a Karibche gateway. The merchant API is at <code>/v1/gateway</code>; the hosted checkout pages are at <code>/checkout/…</code>.</p>
<ul class="cards">${FRONT_DOOR.map((l) => `<li><a href="${l.href}">${escape(l.title)}</a><br><span class="summary">${escape(l.text)}</span></li>`).join('')}</ul>`;
}

/** A client that asked for JSON and not for HTML (a script, `curl -H 'Accept: application/json'`). */
const wantsJson = (request: FastifyRequest) => {
  const accept = String(request.headers.accept ?? '');
  return /\bapplication\/(?:[\w.+-]*\+)?json\b/.test(accept) && !/\btext\/html\b/.test(accept);
};

export function docsRoutes(app: FastifyInstance, publicUrl: string): void {
  const dir = docsDirectory();
  const pages = loadPages(dir);
  const bySlug = new Map(pages.map((p) => [p.slug, p]));
  const statics = loadStaticFiles(dir);
  const cache = new Map<string, string>();
  const memo = <T>(map: Map<string, T>, key: string, make: () => T): T => {
    let value = map.get(key);
    if (value === undefined) map.set(key, (value = make()));
    return value;
  };
  const once = (key: string, make: () => string) => memo(cache, key, make);

  const spec = () => app.swagger() as unknown as OpenApiDocument;
  const reference = () => buildReference(spec());
  // Pages are cached as written for the default address; each answer names this gateway's own.
  const own = (reply: FastifyReply, body: string) => withBase(body, ownBase(publicUrl, reply.request));
  const html = (reply: FastifyReply, body: string, status = 200) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', DOCS_CSP)
      .header('Cache-Control', 'no-cache')
      .send(own(reply, body));
  const text = (reply: FastifyReply, type: string, body: string | Buffer) =>
    reply
      .type(type)
      .header('Cache-Control', 'no-cache')
      .send(typeof body === 'string' ? own(reply, body) : body);

  const rendered = new Map<string, ReturnType<typeof renderMarkdown>>();
  const render = (p: DocPage) => memo(rendered, p.slug, () => renderMarkdown(dir, `${p.slug}.md`, p.markdown));
  const docPage = (p: DocPage) =>
    once(`page:${p.slug}`, () => {
      const r = render(p);
      return page(pages, {
        title: p.title,
        lang: p.lang,
        path: `/docs/${p.slug}`,
        body: r.html,
        toc: r.headings,
        markdownHref: `/docs/${p.slug}.md`,
        translations: otherLanguages(p.lang).flatMap((l) => {
          const slug = p.translations[l];
          return slug ? [{ lang: l, href: `/docs/${slug}` }] : [];
        }),
      });
    });

  const hide = { hide: true };
  app.get('/openapi.json', { schema: hide }, async () => app.swagger());
  app.get('/', { schema: hide }, async (request, reply) => {
    if (!wantsJson(request))
      return html(
        reply,
        once('front', () => page(pages, { title: 'Karibche', lang: 'en', path: '/', body: frontDoorBody() })),
      );
    const base = ownBase(publicUrl, request);
    return reply.header('Cache-Control', 'no-cache').send({
      name: 'Karibche payment gateway',
      api: `${base}/v1/gateway`,
      links: FRONT_DOOR.map((l) => ({ rel: l.rel, href: `${base}${l.href}`, title: l.title })),
    });
  });
  app.get('/docs', { schema: hide }, async (_r, reply) =>
    html(
      reply,
      once('home', () => page(pages, { title: 'Documentation', lang: 'en', path: '/docs', body: home(pages) })),
    ),
  );
  app.get(DOCS_CSS_PATH, { schema: hide }, async (_r, reply) =>
    reply.type('text/css; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(css),
  );
  app.get(DOCS_JS_PATH, { schema: hide }, async (_r, reply) =>
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(js),
  );
  app.get(SEARCH_INDEX_PATH, { schema: hide }, async (_r, reply) =>
    text(
      reply,
      'application/json; charset=utf-8',
      once('search', () => JSON.stringify(searchIndex(pages, render, reference()))),
    ),
  );
  app.get('/docs/api', { schema: hide }, async (_r, reply) =>
    html(
      reply,
      once('api', () => {
        const groups = reference();
        return page(pages, {
          title: 'API reference',
          lang: 'en',
          path: '/docs/api',
          body: referenceHtml(spec().info.title, groups),
          markdownHref: '/docs/api.md',
        });
      }),
    ),
  );
  app.get('/docs/api.md', { schema: hide }, async (_r, reply) =>
    text(
      reply,
      'text/markdown; charset=utf-8',
      once('api.md', () => referenceMarkdown(spec().info.title, reference())),
    ),
  );
  app.get('/docs/errors', { schema: hide }, async (_r, reply) =>
    html(
      reply,
      once('errors', () => {
        const e = errorsBody();
        return page(pages, {
          title: 'Error codes',
          lang: 'en',
          path: '/docs/errors',
          body: e.html,
          toc: e.toc,
          markdownHref: '/docs/ERRORS.md',
        });
      }),
    ),
  );
  app.get('/docs/postman.json', { schema: hide }, async (_r, reply) =>
    text(
      reply,
      'application/json; charset=utf-8',
      once('postman', () =>
        JSON.stringify(
          postmanCollection(spec().info.title, spec().info.description ?? '', publicUrl, reference()),
          null,
          2,
        ),
      ),
    ),
  );
  app.get('/llms.txt', { schema: hide }, async (_r, reply) =>
    text(
      reply,
      'text/plain; charset=utf-8',
      once('llms', () => llmsTxt(DOCS_DEFAULT_BASE, pages)),
    ),
  );

  // Every file under docs/: a page, its Markdown twin, or a file a page links to.
  app.get('/docs/*', { schema: hide }, async (request, reply) => {
    const rest = (request.params as { '*': string })['*'].replace(/\/+$/, '');
    const md = rest.endsWith('.md') ? bySlug.get(rest.slice(0, -3)) : undefined;
    if (md) return text(reply, 'text/markdown; charset=utf-8', md.markdown);
    const p = bySlug.get(rest);
    if (p) return html(reply, docPage(p));
    const file = statics.get(rest);
    if (file) return text(reply, file.type, fs.readFileSync(file.file));
    // Like any unknown path: the gateway's 404 problem (system.404.004).
    return reply.callNotFound();
  });
}
