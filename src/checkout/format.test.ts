// The checkout's pure parts: amounts as the customer reads them (grouped in threes with the
// language's separators, built from the integer minor units, never a float), card schemes, the form
// memory cookie's checks, and readable text on any brand colour.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatMinor } from '../payments/money.ts';
import { formatAmount } from '../html/format.ts';
import { decodeMemory, encodeMemory } from './form-memory.ts';
import { brandCss, contrast } from './brand.ts';
import { schemeOf } from './marks.ts';

describe('checkout formatting', () => {
  it('groups amounts for English and Georgian', () => {
    const cases: [number, string, string][] = [
      [5, '0.05 GEL', '0,05 GEL'],
      [4990, '49.90 GEL', '49,90 GEL'],
      [100000, '1,000.00 GEL', '1 000,00 GEL'],
      [99999999, '999,999.99 GEL', '999 999,99 GEL'],
      [100000000, '1,000,000.00 GEL', '1 000 000,00 GEL'],
      [999999999999999, '9,999,999,999,999.99 GEL', '9 999 999 999 999,99 GEL'],
    ];
    for (const [minor, en, ka] of cases) {
      assert.equal(formatAmount(minor, 'GEL', 'en').replace(/\u00a0/g, ' '), en);
      assert.equal(formatAmount(minor, 'GEL', 'ka').replace(/\u00a0/g, ' '), ka);
    }
    assert.match(
      formatAmount(123456, 'EUR', 'ka'),
      /^1\u00a0234,56\u00a0EUR$/,
      'no-break spaces: an amount never wraps',
    );
  });

  it('is the exact decimal of the minor units for every safe integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (minor) => {
        const en = formatAmount(minor, 'USD', 'en');
        const ka = formatAmount(minor, 'USD', 'ka');
        assert.equal(en.replace(/,/g, '').replace('\u00a0USD', ''), formatMinor(minor));
        assert.equal(
          ka
            .replace(/\u00a0/g, '')
            .replace('USD', '')
            .replace(',', '.'),
          formatMinor(minor),
        );
        assert.match(en, /^\d{1,3}(,\d{3})*\.\d{2}\u00a0USD$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('recognises card schemes by their first digits', () => {
    assert.equal(schemeOf('4111111111111111')?.id, 'visa');
    assert.equal(schemeOf('411111******1111')?.id, 'visa');
    assert.equal(schemeOf('5555555555554444')?.id, 'mastercard');
    assert.equal(schemeOf('2221000000000009')?.id, 'mastercard');
    assert.equal(schemeOf('378282246310005')?.id, 'amex');
    assert.equal(schemeOf('6011111111111117'), undefined);
    assert.equal(schemeOf(null), undefined);
  });

  it('reads back only well-formed form memory', () => {
    const ok = { holder: 'ნინო ბერიძე', last4: '3220', scheme: 'visa' };
    assert.deepEqual(decodeMemory(encodeMemory(ok)), ok);
    assert.deepEqual(
      decodeMemory(encodeMemory({ holder: 'x'.repeat(101), last4: '12345', scheme: 'evil' } as never)),
      {},
    );
    assert.deepEqual(decodeMemory('not base64 json'), {});
    assert.deepEqual(decodeMemory(undefined), {});
  });

  it('keeps text readable on any brand colour', () => {
    assert.equal(brandCss('#aa3300'), ':root{--brand:#aa3300;--on-brand:#fff;--brand-text:#aa3300}\n');
    assert.equal(brandCss('#ffcc00'), ':root{--brand:#ffcc00;--on-brand:#000;--brand-text:#16191f}\n');
    assert.equal(brandCss('red; }'), brandCss(null));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffff }), (n) => {
        const color = `#${n.toString(16).padStart(6, '0')}`;
        const vars = Object.fromEntries(
          [...brandCss(color).matchAll(/--([a-z-]+):(#[0-9a-f]+)/g)].map((m) => [m[1], m[2]]),
        );
        const on = vars['on-brand'] === '#fff' ? '#ffffff' : '#000000';
        assert.ok(contrast(on, color) >= 4.5, `${color}: ${contrast(on, color)}`);
        assert.ok(contrast(vars['brand-text']!, '#ffffff') >= 4.5);
      }),
      { numRuns: 5000 },
    );
  });
});
