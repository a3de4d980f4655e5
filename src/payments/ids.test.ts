import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isWellFormedId, newPayId, randomHex } from './ids.ts';

describe('identifiers', () => {
  it('are 128-bit lowercase hex and never repeat across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = newPayId();
      assert.ok(isWellFormedId(id), id);
      assert.ok(!seen.has(id));
      seen.add(id);
    }
    assert.equal(randomHex(3).length, 6);
    assert.equal(isWellFormedId('A'.repeat(32)), false);
    assert.equal(isWellFormedId('a'.repeat(31)), false);
  });
});
