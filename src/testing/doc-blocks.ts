// The code blocks of the documentation, for the test that runs them (src/docs/executed.test.ts):
// every fenced block of README.md and docs/**/*.md, in the order a reader meets the pages, with the
// marker that says how (or why not) to run it.
//
// A marker is an HTML comment (invisible on GitHub and on the docs site) on the last non-blank line
// before the fence:
//   <!-- not-run: why -->                  the block is shown, never run (a deploy, `npm start`…)
//   <!-- run: background, port 3000 -->    started in the background (a server), the page goes on
//                                          once something listens on the port; stopped with the page
//   <!-- excerpt-of: samples/callback.mjs -->  a part of a file (path from the page's folder), which
//                                          must contain it verbatim; the file's own test runs it
//   <!-- output-of: background -->         what the page's background server prints: the page waits
//                                          (30 s at most) until it has printed such a line
import fs from 'node:fs';
import path from 'node:path';

/** Languages the test runs, by the interpreter that runs them. */
export const RUNNABLE: Record<string, 'shell' | 'node' | 'php' | 'python'> = {
  sh: 'shell',
  bash: 'shell',
  shell: 'shell',
  js: 'node',
  javascript: 'node',
  mjs: 'node',
  php: 'php',
  python: 'python',
};

/** Languages that are shown, not run: data and output (an answer, a file's content, a terminal's text). */
export const SHOWN = new Set(['json', 'text', 'http', 'ini']);

export type Marker =
  | { kind: 'not-run'; reason: string }
  | { kind: 'background'; port: number | null }
  | { kind: 'excerpt-of'; file: string }
  | { kind: 'output-of-background' };

export interface DocBlock {
  /** Path from the repository's root: README.md, docs/guides/quickstart.md. */
  page: string;
  /** Line of the opening fence, from 1. */
  line: number;
  lang: string;
  code: string;
  marker: Marker | null;
  /** A marker the test cannot read, or a block in no known language without a marker. */
  problem: string | null;
}

function parseMarker(line: string): Marker | string | null {
  const m = /^<!--\s*(not-run|run|excerpt-of|output-of)\s*:\s*(.*?)\s*-->$/.exec(line.trim());
  if (!m)
    return /^<!--\s*(not-run|run|excerpt-of|output-of)\b/.test(line.trim())
      ? `unreadable marker: ${line.trim()}`
      : null;
  const [, kind, value] = m as unknown as [string, string, string];
  if (kind === 'not-run') return value ? { kind, reason: value } : 'a not-run marker needs its reason';
  if (kind === 'excerpt-of') return value ? { kind, file: value } : 'an excerpt-of marker needs its file';
  if (kind === 'output-of')
    return value === 'background' ? { kind: 'output-of-background' } : `unknown output-of marker: ${value}`;
  const bg = /^background(?:,\s*port\s+(\d+))?$/.exec(value);
  return bg ? { kind: 'background', port: bg[1] ? Number(bg[1]) : null } : `unknown run marker: ${value}`;
}

/** Every fenced block of one Markdown file. */
export function blocksOf(page: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trim().startsWith(fence); j++)
      body.push(lines[j]!.slice(Math.min(indent.length, /^\s*/.exec(lines[j]!)![0].length)));
    let k = i - 1;
    while (k >= 0 && !lines[k]!.trim()) k--;
    const parsed = k >= 0 ? parseMarker(lines[k]!) : null;
    const marker = typeof parsed === 'string' ? null : parsed;
    let problem = typeof parsed === 'string' ? parsed : null;
    const language = lang.toLowerCase();
    if (!problem && !marker && !(language in RUNNABLE) && !SHOWN.has(language)) {
      problem = language
        ? `no runner for the language "${language}" and no marker`
        : 'no language and no marker (```text for output)';
    }
    if (!problem && marker?.kind === 'background' && RUNNABLE[language] !== 'shell')
      problem = 'only a shell block runs in the background';
    blocks.push({ page, line: i + 1, lang: language, code: body.join('\n'), marker, problem });
    i = j;
  }
  return blocks;
}

/**
 * The pages in the order a reader meets them: the README, the pages its documentation list links
 * (in the order it links them), then every other Markdown file under docs/, by path.
 */
export function pagesInReadingOrder(root: string): string[] {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const list = readme.slice(readme.indexOf('## Documentation'));
  const linked = [...list.matchAll(/\]\((docs\/[^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]!);
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(path.join(root, dir), { withFileTypes: true })
      .flatMap((e) =>
        e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : [],
      );
  const all = walk('docs').sort();
  return [...new Set(['README.md', ...linked.filter((p) => all.includes(p)), ...all])];
}
