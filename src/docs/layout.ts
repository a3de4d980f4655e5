// The frame of every docs page: a header, the navigation (every guide, the reference, every other
// document under docs/), the page with its own table of contents, and links to the page's
// Markdown twin and its other language. One stylesheet and one script of our own (docs.js: the
// search box and the code blocks' copy buttons; the pages read the same without it).
import type { DocPage } from './files.ts';
import { escape } from '../html/html.ts';
import { DOCS_LANGUAGE, LANGUAGE_INFO, otherLanguages, type Language } from '../i18n/languages.ts';

export const DOCS_CSS_PATH = '/docs/assets/docs.css';
export const DOCS_JS_PATH = '/docs/assets/docs.js';
export const SEARCH_INDEX_PATH = '/docs/search.json';

/** The docs pages' policy: our stylesheet, images and one script, which may read the search index; nothing else. */
export const DOCS_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const CHROME = {
  en: {
    skip: 'Skip to the content',
    menu: 'Menu',
    onThisPage: 'On this page',
    markdown: 'This page as Markdown',
    guides: 'Guides',
    reference: 'Reference',
    more: 'More documentation',
  },
  ka: {
    skip: 'შინაარსზე გადასვლა',
    menu: 'მენიუ',
    onThisPage: 'ამ გვერდზე',
    markdown: 'ეს გვერდი Markdown-ად',
    guides: 'სახელმძღვანელოები',
    reference: 'ცნობარი',
    more: 'სხვა დოკუმენტაცია',
  },
} satisfies Record<Language, Record<string, string>>;

export const REFERENCE_LINKS: { href: string; title: string }[] = [
  { href: '/docs/api', title: 'API reference' },
  { href: '/docs/errors', title: 'Error codes' },
  { href: '/openapi.json', title: 'OpenAPI document' },
  { href: '/docs/postman.json', title: 'Postman collection' },
  { href: '/llms.txt', title: 'llms.txt' },
];

export interface PageOptions {
  title: string;
  lang: Language;
  /** The URL of this page, to mark it in the navigation. */
  path: string;
  body: string;
  toc?: { id: string; text: string }[];
  markdownHref?: string;
  /** The page in other languages. */
  translations?: { lang: Language; href: string }[];
}

const link = (href: string, text: string, current: string, lang?: string) =>
  `<a href="${escape(href)}"${href === current ? ' aria-current="page"' : ''}${lang ? ` lang="${lang}" hreflang="${lang}"` : ''}>${escape(text)}</a>`;

/** The lang attribute a link to page `p` needs: none in the docs' own language. */
const langOf = (p: DocPage) => (p.lang === DOCS_LANGUAGE ? undefined : LANGUAGE_INFO[p.lang].htmlLang);

function navigation(pages: DocPage[], current: string, lang: Language): string {
  const t = CHROME[lang];
  const guides = pages.filter((p) => p.guide && p.lang === DOCS_LANGUAGE);
  const others = pages.filter((p) => !p.guide);
  const guideItems = guides
    .map((p) => {
      const alternates = otherLanguages(p.lang)
        .flatMap((l) => {
          const slug = p.translations[l];
          return slug
            ? [
                ` <span class="alt">${link(`/docs/${slug}`, LANGUAGE_INFO[l].short, current, LANGUAGE_INFO[l].htmlLang)}</span>`,
              ]
            : [];
        })
        .join('');
      return `<li>${link(`/docs/${p.slug}`, p.title, current)}${alternates}</li>`;
    })
    .join('');
  // A translated guide without its page in the docs' own language still needs a place in the menu.
  const orphans = pages
    .filter((p) => p.guide && p.lang !== DOCS_LANGUAGE && !p.translations[DOCS_LANGUAGE])
    .map((p) => `<li>${link(`/docs/${p.slug}`, p.title, current, langOf(p))}</li>`);
  return `<nav id="nav" aria-label="Documentation">
<p class="nav-home">${link('/docs', 'Karibche docs', current)}</p>
<h2>${t.guides}</h2><ul>${guideItems}${orphans.join('')}</ul>
<h2>${t.reference}</h2><ul>${REFERENCE_LINKS.map((r) => `<li>${link(r.href, r.title, current)}</li>`).join('')}</ul>
<h2>${t.more}</h2><ul>${others.map((p) => `<li>${link(`/docs/${p.slug}`, p.title, current, langOf(p))}</li>`).join('')}</ul>
</nav>`;
}

/** The table of contents goes right under the page's title. */
const withToc = (body: string, toc: string) =>
  toc && body.includes('</h1>') ? body.replace('</h1>', `</h1>${toc}`) : toc + body;

export function page(pages: DocPage[], o: PageOptions): string {
  const t = CHROME[o.lang];
  const toc =
    o.toc && o.toc.length >= 3
      ? `<nav class="toc" aria-label="${t.onThisPage}"><h2>${t.onThisPage}</h2><ul>${o.toc.map((h) => `<li><a href="#${escape(h.id)}">${escape(h.text)}</a></li>`).join('')}</ul></nav>`
      : '';
  const tools = [
    ...(o.translations ?? []).map((tr) => {
      const info = LANGUAGE_INFO[tr.lang];
      return `<a href="${escape(tr.href)}" hreflang="${info.htmlLang}" lang="${info.htmlLang}">${escape(info.inLanguage)}</a>`;
    }),
    o.markdownHref ? `<a href="${escape(o.markdownHref)}" type="text/markdown">${t.markdown}</a>` : '',
  ].filter(Boolean);
  return `<!doctype html>
<html lang="${o.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(o.title)} · Karibche</title><link rel="stylesheet" href="${DOCS_CSS_PATH}"><script src="${DOCS_JS_PATH}" defer></script></head>
<body><a class="skip" href="#main">${t.skip}</a>
<header class="top"><a class="brand" href="/docs">Karibche</a><form id="search" class="search" role="search" hidden><input type="search" autocomplete="off" spellcheck="false"><ul class="results" aria-live="polite"></ul></form><a class="menu" href="#nav">${t.menu}</a></header>
<div class="frame">${navigation(pages, o.path, o.lang)}
<main id="main">${tools.length ? `<p class="tools">${tools.join(' · ')}</p>` : ''}<article>${withToc(o.body, toc)}</article></main>
</div></body></html>`;
}
