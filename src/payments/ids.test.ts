import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cardNumbersIn } from './card.ts';
import { isWellFormedId, newPayId, newTransactionId, randomHex, transactionIdOf } from './ids.ts';

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

  it('a transaction id never reads as a card number, even when its random digits would', () => {
    // The id the crash test once produced: sim_ and 16 digits, Luhn-valid in a scheme's range.
    const digits = '6011000990139424';
    assert.deepEqual(cardNumbersIn(`sim_${digits}`), [digits], 'the scanner sees a card number after an underscore');
    const id = transactionIdOf(digits);
    assert.match(id, /^sim_[0-9a-f]{16}$/);
    assert.deepEqual(cardNumbersIn(id), []);
    assert.equal(transactionIdOf('3c5f28b86ec853f6'), 'sim_3c5f28b86ec853f6', 'ids with a letter are kept as drawn');
    for (let i = 0; i < 20_000; i++) assert.deepEqual(cardNumbersIn(newTransactionId()), []);
  });
});
