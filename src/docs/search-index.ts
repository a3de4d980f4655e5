// The docs site's search index (/docs/search.json): every page's title, headings and text, and every
// operation of the API reference, for the search box of docs.js to search in the browser (no
// server round trip per keystroke, nothing external). Built once, like the pages.
import type { DocPage } from './files.ts';
import type { ReferenceGroup } from './reference.ts';
import { DOCS_LANGUAGE, type Language } from '../i18n/languages.ts';

export interface SearchEntry {
  url: string;
  title: string;
  lang: Language;
  headings: string[];
  /** The page's text without markup, code blocks included (people search for an endpoint or a variable). */
  text: string;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** Rendered HTML as plain text: pictures dropped, tags become spaces, entities decoded. */
export function plainText(html: string): string {
  return html
    .replace(/<svg[\s\S]*?<\/svg>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!)
    .replace(/\s+/g, ' ')
    .trim();
}

export function searchIndex(
  pages: DocPage[],
  rendered: (p: DocPage) => { html: string; headings: { text: string }[] },
  reference: ReferenceGroup[],
): SearchEntry[] {
  const docs = pages.map((p): SearchEntry => {
    const r = rendered(p);
    return {
      url: `/docs/${p.slug}`,
      title: p.title,
      lang: p.lang,
      headings: r.headings.map((h) => h.text),
      text: plainText(r.html),
    };
  });
  const operations = reference.flatMap((g) =>
    g.operations.map(
      (o): SearchEntry => ({
        url: `/docs/api#${o.id}`,
        title: `${o.method} ${o.path}`,
        lang: DOCS_LANGUAGE,
        headings: [o.summary, g.tag],
        text: `${o.summary}. ${o.description} ${o.fields.map((f) => f.name).join(' ')}`,
      }),
    ),
  );
  return [...docs, ...operations];
}
