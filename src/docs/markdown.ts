// Markdown → HTML for the docs pages, with `marked` (GitHub-flavoured) and GitHub's heading ids, so
// a link that works on the repository's pages works on the gateway's too. Only the repository's
// own files are rendered (trusted text, never user input), so raw HTML in them is kept as written.
//
// Links are rewritten from file paths to the site's URLs: `../sandbox.md#faults` → `/docs/sandbox#faults`,
// `samples/verify.py` → `/docs/guides/samples/verify.py`, the README → the docs home. A link to a
// repository file outside docs/ (source code) has no page on the site: it stays as its text.
// A local SVG image is put inline (it is the page's own picture, e.g. the payment state diagram).
import fs from 'node:fs';
import path from 'node:path';
import { Marked, type Tokens } from 'marked';
import { getHeadingList, gfmHeadingId } from 'marked-gfm-heading-id';
import { escape } from '../html/html.ts';

export interface Rendered {
  html: string;
  /** The page's second-level headings, for its table of contents. */
  headings: { id: string; text: string }[];
}

/**
 * Where a link written in the file `from` (a path below docs/, e.g. `guides/callbacks.md`) goes on
 * the site: an absolute `/docs/…` URL, the link unchanged (another site, an anchor), or null when the
 * target has no page (a source file).
 */
export function siteHref(from: string, href: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('/')) return href;
  const [target = '', hash = ''] = href.split(/(?=#)/);
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURI(target)));
  if (resolved === '../README.md') return `/docs${hash}`;
  if (resolved.startsWith('../')) return null;
  return `/docs/${encodeURI(resolved.replace(/\.md$/, ''))}${hash}`;
}

/** An SVG file under docs/ shown inline, labelled with the image's alt text. */
function inlineSvg(file: string, alt: string): string {
  const svg = fs.readFileSync(file, 'utf8').replace(/<\?xml[^>]*>\s*/, '');
  return `<figure class="diagram" tabindex="0">${svg.replace(/<svg\b/, `<svg role="img" aria-label="${escape(alt)}"`)}</figure>`;
}

export function renderMarkdown(docsDir: string, from: string, markdown: string): Rendered {
  const marked = new Marked(gfmHeadingId(), {
    gfm: true,
    renderer: {
      link(this: { parser: { parseInline(t: Tokens.Generic[]): string } }, token: Tokens.Link) {
        const text = this.parser.parseInline(token.tokens);
        const href = siteHref(from, token.href);
        if (href === null) return text;
        return `<a href="${escape(href)}"${token.title ? ` title="${escape(token.title)}"` : ''}>${text}</a>`;
      },
      image(token: Tokens.Image) {
        const href = siteHref(from, token.href);
        const local = href?.startsWith('/docs/') ? path.join(docsDir, decodeURI(href.slice(6).split('#')[0]!)) : null;
        if (local?.endsWith('.svg') && fs.existsSync(local)) return inlineSvg(local, token.text);
        return `<img src="${escape(href ?? '')}" alt="${escape(token.text)}">`;
      },
    },
  });
  const body = marked.parse(markdown, { async: false });
  const headings = getHeadingList()
    .filter((h) => h.level === 2)
    .map((h) => ({ id: h.id, text: h.raw }));
  // Wide tables and code scroll inside their own box on a phone instead of widening the page; a
  // box that scrolls must be reachable from the keyboard, so code blocks take the focus.
  const html = body
    .replace(/<table>/g, '<div class="table" tabindex="0"><table>')
    .replace(/<\/table>/g, '</table></div>')
    .replace(/<pre>/g, '<pre tabindex="0">');
  return { html, headings };
}
