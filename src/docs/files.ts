// The documentation the gateway serves is the repository's docs/ folder, found when the gateway
// starts: every Markdown file there (and in docs/guides/) becomes a page, so a new file appears
// without a code change. `npm start` runs a bundle, so scripts/build.mjs copies docs/ next to it
// (dist/docs/); the sources (tests, tsx) read the repository's folder.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCS_LANGUAGE, isLanguage, otherLanguages, type Language } from '../i18n/languages.ts';

/** dist/docs next to the bundle, else the repository's docs/ (two levels above src/docs/). */
export function docsDirectory(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const bundled = path.join(here, 'docs');
  return fs.existsSync(path.join(bundled, 'guides')) ? bundled : path.resolve(here, '../../docs');
}

export interface DocPage {
  /** URL path below /docs/ and file path below docs/ without `.md`: `sandbox`, `guides/quickstart`. */
  slug: string;
  file: string;
  /** The first `# ` heading, else the file name. */
  title: string;
  /** The first paragraph after the title, for indexes (llms.txt, the docs home). */
  summary: string;
  /** The language of `name.<language>.md`, else the docs' own (DOCS_LANGUAGE). */
  lang: Language;
  /** The slugs of this page in the other languages that have it (`quickstart` ↔ `quickstart.ka`). */
  translations: Partial<Record<Language, string>>;
  guide: boolean;
  markdown: string;
}

/** Files under docs/ other than Markdown that pages may link to, with the type they are served as. */
export const STATIC_TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.mjs': 'text/plain; charset=utf-8',
  '.js': 'text/plain; charset=utf-8',
  '.php': 'text/plain; charset=utf-8',
  '.py': 'text/plain; charset=utf-8',
  '.sh': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The guides in reading order. A guide not listed here (a new file) comes after them, by title;
 * every other Markdown file under docs/ is listed by title too.
 */
export const GUIDE_ORDER = [
  'quickstart',
  'api-basics',
  'lifecycle',
  'callbacks',
  'refunds',
  'preauthorisation',
  'saved-cards',
  'split-payments',
  'sandbox',
  'errors',
  'production',
  'contributing',
];

function walk(dir: string, base = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const rel = base ? `${base}/${e.name}` : e.name;
    return e.isDirectory() ? walk(path.join(dir, e.name), rel) : [rel];
  });
}

function titleAndSummary(markdown: string, fallback: string): { title: string; summary: string } {
  const lines = markdown.split('\n');
  const h1 = lines.findIndex((l) => l.startsWith('# '));
  const title = h1 >= 0 ? lines[h1]!.slice(2).trim() : fallback;
  const rest = lines.slice(h1 + 1);
  const start = rest.findIndex((l) => l.trim() && !/^(#|```|\||<|!\[|- |\* |\d+\. )/.test(l.trim()));
  const para: string[] = [];
  for (const l of start >= 0 ? rest.slice(start) : []) {
    if (!l.trim()) break;
    para.push(l.trim());
  }
  // Plain text for an index: links keep their text, emphasis and code marks go.
  const summary = plainText(para.join(' ').replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1'));
  return { title, summary };
}

/**
 * Markdown inline marks removed, the text kept: a code span keeps its content as written
 * (`KARIBCHE_MODE` stays KARIBCHE_MODE), and outside code a `*` or `_` goes only when it is an
 * emphasis mark, never between two letters (an underscore inside a name is part of the name).
 */
export function plainText(markdown: string): string {
  return markdown
    .split(/(`[^`]*`)/)
    .map((part, i) =>
      i % 2 ? part.slice(1, -1) : part.replace(/\*+/g, '').replace(/_+(?![\p{L}\p{N}])|(?<![\p{L}\p{N}])_+/gu, ''),
    )
    .join('');
}

/** A slug's language (its `.<language>` suffix, else the docs' own) and the slug without it. */
export function languageOfSlug(slug: string): { base: string; lang: Language } {
  const m = /\.([a-z]{2})$/.exec(slug);
  const lang = m && isLanguage(m[1]) && m[1] !== DOCS_LANGUAGE ? m[1] : null;
  return lang ? { base: slug.slice(0, -3), lang } : { base: slug, lang: DOCS_LANGUAGE };
}

/** The slug of page `base` in `lang`. */
export const slugIn = (base: string, lang: Language) => (lang === DOCS_LANGUAGE ? base : `${base}.${lang}`);

const rank = (p: DocPage) => {
  const i = GUIDE_ORDER.indexOf(languageOfSlug(p.slug.replace(/^guides\//, '')).base);
  return p.guide && i >= 0 ? i : GUIDE_ORDER.length;
};

/** Every Markdown page under `dir`, guides first in reading order, then the rest by title. */
export function loadPages(dir: string): DocPage[] {
  const slugs = new Set(
    walk(dir)
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3)),
  );
  const pages = [...slugs].map((slug): DocPage => {
    const file = path.join(dir, `${slug}.md`);
    const markdown = fs.readFileSync(file, 'utf8');
    const { base, lang } = languageOfSlug(slug);
    const translations: Partial<Record<Language, string>> = {};
    for (const other of otherLanguages(lang)) {
      const candidate = slugIn(base, other);
      if (slugs.has(candidate)) translations[other] = candidate;
    }
    return {
      slug,
      file,
      ...titleAndSummary(markdown, path.basename(slug)),
      lang,
      translations,
      guide: slug.startsWith('guides/'),
      markdown,
    };
  });
  return pages.sort(
    (a, b) =>
      Number(b.guide) - Number(a.guide) ||
      rank(a) - rank(b) ||
      a.title.localeCompare(b.title) ||
      a.slug.localeCompare(b.slug),
  );
}

/** Non-Markdown files under `dir` that may be served (see STATIC_TYPES), by path below docs/. */
export function loadStaticFiles(dir: string): Map<string, { file: string; type: string }> {
  const files = new Map<string, { file: string; type: string }>();
  for (const rel of walk(dir)) {
    const type = STATIC_TYPES[path.extname(rel)];
    if (type) files.set(rel, { file: path.join(dir, rel), type });
  }
  return files;
}
