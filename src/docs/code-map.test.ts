// The code map of docs/guides/contributing.md stays true: every path it names exists, and every
// folder of src/ and test/ has its line (issue 27: the map named files that did not exist, and
// folders were missing from it). An entry is a line that starts at the left margin: its paths come
// first, separated by ", " (a name without a folder is beside the first path: `src/app.ts, gateway.ts`),
// then two spaces or more and what they hold.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const GUIDE = 'docs/guides/contributing.md';

/** The paths the code map names, in the guide's order (folders end with "/"). */
function codeMapPaths(markdown: string): string[] {
  const block = /^## Code map\n\n```text\n([\s\S]*?)^```/m.exec(markdown);
  if (!block) throw new Error(`${GUIDE}: no "## Code map" section with a text block`);
  return block[1]!.split('\n').flatMap((line) => {
    const entry = /^(\S.*?)(?: {2,}|$)/.exec(line);
    if (!entry) return [];
    const [first, ...beside] = entry[1]!.split(', ');
    const folder = path.posix.dirname(first!);
    return [first!, ...beside.map((name) => (name.includes('/') ? name : `${folder}/${name}`))];
  });
}

const folders = (dir: string) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${dir}/${e.name}/`);

describe('the code map (docs/guides/contributing.md)', () => {
  const named = codeMapPaths(fs.readFileSync(GUIDE, 'utf8'));

  it('reads the entries of its block, files beside another included', () => {
    const sample = '## Code map\n\n```text\nsrc/a.ts, b.ts   two files\nsrc/c/          a folder\n  more words\n```\n';
    assert.deepEqual(codeMapPaths(sample), ['src/a.ts', 'src/b.ts', 'src/c/']);
    assert.ok(named.length > 20, `found ${named.length} paths in the code map`);
  });

  it('names only paths that exist (a folder as a folder)', () => {
    const missing = named.filter((p) => {
      const stat = fs.statSync(p, { throwIfNoEntry: false });
      return !stat || stat.isDirectory() !== p.endsWith('/');
    });
    assert.deepEqual(missing, []);
  });

  it('has a line for every folder of src/ and test/', () => {
    const absent = [...folders('src'), ...folders('test')].filter((f) => !named.includes(f));
    assert.deepEqual(absent, []);
  });
});
