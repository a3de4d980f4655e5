import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { errorsMarkdown } from './errors-doc.ts';
import { ERRORS, OPERATIONS, catalogue } from './catalogue.ts';

describe('error catalogue', () => {
  it('gives every (operation, status, nnn) one meaning', () => {
    const seen = new Map<string, string>();
    for (const r of catalogue()) {
      assert.match(r.code, /^[a-z-]+\.\d{3}\.\d{3}$/);
      assert.ok(!seen.has(r.code), `${r.code} is both ${seen.get(r.code)} and ${r.name}`);
      seen.set(r.code, r.name);
    }
    assert.ok(seen.has('access-token.400.001'));
    assert.equal(seen.get('access-token.400.001'), 'invalidClientCredentials');
  });

  it('lets every error occur somewhere, and every 400 carries a resultCode', () => {
    for (const [name, def] of Object.entries(ERRORS)) {
      assert.ok(def.ops.length > 0, name);
      for (const op of def.ops) assert.ok((OPERATIONS as readonly string[]).includes(op), `${name}: ${op}`);
      if (def.status === 400) assert.ok(def.resultCode, name);
    }
  });

  it('is documented: docs/ERRORS.md matches the catalogue (npm run docs:errors)', () => {
    const doc = fs.readFileSync(new URL('../../docs/ERRORS.md', import.meta.url), 'utf8');
    assert.equal(doc, errorsMarkdown());
  });
});
