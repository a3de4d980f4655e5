import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ceilDiv, formatMinor, isWithinPercent, parseAmount, toJsonAmount } from './money.ts';

describe('parseAmount', () => {
  it('accepts numbers and decimal strings as minor units', () => {
    const cases: [unknown, number][] = [
      [10, 1000],
      [10.5, 1050],
      ['10', 1000],
      ['10.5', 1050],
      ['10.50', 1050],
      ['0.01', 1],
      [0, 0],
      ['007.10', 710],
      [0.1, 10],
      [1000000, 100000000],
      [' 3.30 ', 330],
      [19.99, 1999],
      [1.005e2, 10050],
    ];
    for (const [input, minor] of cases) assert.deepEqual(parseAmount(input), { ok: true, minor }, String(input));
  });

  it('rejects more than two decimals, negatives, exponents, NaN and non-amounts', () => {
    for (const input of [
      10.123,
      '10.123',
      '-1',
      -0.5,
      'abc',
      '',
      '1e3',
      '1.',
      '.5',
      NaN,
      Infinity,
      null,
      true,
      {},
      [],
      '10,50',
      '0x10',
      1e-7,
      '１０',
    ]) {
      assert.equal(parseAmount(input).ok, false, JSON.stringify(input) ?? String(input));
    }
    assert.match((parseAmount('1.234') as { reason: string }).reason, /two decimals/);
    assert.match((parseAmount('-3') as { reason: string }).reason, /negative/);
  });

  it('rejects amounts too large to stay exact', () => {
    assert.equal(parseAmount('99999999999999.99').ok, false);
    assert.equal(parseAmount(1e21).ok, false);
  });

  it('round-trips every two-decimal amount (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999 }), (minor) => {
        const text = formatMinor(minor);
        assert.deepEqual(parseAmount(text), { ok: true, minor });
        assert.deepEqual(parseAmount(toJsonAmount(minor)), { ok: true, minor });
        assert.deepEqual(parseAmount(JSON.parse(JSON.stringify(toJsonAmount(minor)))), { ok: true, minor });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('formatting', () => {
  it('formats minor units with two decimals and as JSON numbers', () => {
    assert.equal(formatMinor(1050), '10.50');
    assert.equal(formatMinor(5), '0.05');
    assert.equal(formatMinor(0), '0.00');
    assert.equal(formatMinor(-250), '-2.50');
    assert.equal(toJsonAmount(1005), 10.05);
    assert.equal(JSON.stringify(toJsonAmount(1050)), '10.5');
    assert.equal(JSON.stringify(toJsonAmount(1999)), '19.99');
    assert.throws(() => formatMinor(1.5));
  });

  it('divides into parts rounding up, exactly', () => {
    assert.equal(ceilDiv(30000, 12), 2500);
    assert.equal(ceilDiv(10001, 3), 3334);
    assert.equal(ceilDiv(1, 24), 1);
    assert.equal(ceilDiv(9007199254740991, 2), 4503599627370496);
  });

  it('compares percentages in integers', () => {
    assert.equal(isWithinPercent(99, 100, 99), true);
    assert.equal(isWithinPercent(100, 100, 99), false);
    assert.equal(isWithinPercent(990, 1000, 99), true);
    assert.equal(isWithinPercent(991, 1000, 99), false);
    assert.equal(isWithinPercent(1, 1, 99), false);
  });
});
