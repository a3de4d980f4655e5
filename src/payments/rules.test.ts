// Pure rules: IBAN, ANSI text, MMYY, methods.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkSplitIban, normaliseIban } from './iban.ts';
import { defaultMethods, methodRefusal } from './methods.ts';
import { charLength, isAnsiPrintable, isHttpUrl, isMonthInPast, parseMmYy } from './text.ts';

describe('IBAN', () => {
  it('accepts a Georgian IBAN at the bank, with spaces or lower case', () => {
    assert.deepEqual(checkSplitIban('GE60KB0000000101904917', 'KB'), { ok: true, iban: 'GE60KB0000000101904917' });
    assert.deepEqual(checkSplitIban('ge60 kb00 0000 0101 9049 17', 'KB'), { ok: true, iban: 'GE60KB0000000101904917' });
  });
  it('rejects bad check digits and bad structure as format errors', () => {
    for (const bad of [
      'GE61KB0000000101904917',
      'GE60KB000000010190491',
      'GE60KB00000001019049171',
      'XX60KB0000000101904917',
      'not an iban',
      '',
    ]) {
      const r = checkSplitIban(bad, 'KB');
      assert.equal(r.ok, false, bad);
      assert.equal((r as { kind: string }).kind, 'format', bad);
    }
  });
  it('rejects valid IBANs of another bank or country as foreign', () => {
    assert.deepEqual(checkSplitIban('GE64TB0000000101904917', 'KB').ok, false);
    assert.equal((checkSplitIban('GE64TB0000000101904917', 'KB') as { kind: string }).kind, 'foreign');
    assert.equal((checkSplitIban('DE89370400440532013000', 'KB') as { kind: string }).kind, 'foreign');
    assert.equal(checkSplitIban('GE64TB0000000101904917', 'TB').ok, true);
  });
  it('normalises', () => {
    assert.equal(normaliseIban('de89 3704 0044 0532 0130 00'), 'DE89370400440532013000');
    assert.equal(normaliseIban('DE00370400440532013000'), null);
  });
});

describe('ANSI text', () => {
  it('accepts printable Windows-1252 characters', () => {
    for (const s of ['Order #42', 'Café € – “quoted” ™', 'ÀÿŠšŽžŒœŸƒ', '']) assert.equal(isAnsiPrintable(s), true, s);
  });
  it('refuses control characters, unmapped and non-Latin characters', () => {
    for (const s of ['tab\there', 'new\nline', '\u0081', '\u0090', 'ქართული', '😀', '\u200b', '\u007f'])
      assert.equal(isAnsiPrintable(s), false, JSON.stringify(s));
  });
  it('counts characters, not UTF-16 units', () => {
    assert.equal(charLength('ქართული'), 7);
    assert.equal(charLength('😀😀'), 2);
  });
});

describe('URLs and MMYY', () => {
  it('accepts only absolute http(s) URLs', () => {
    assert.equal(isHttpUrl('https://shop.example/return?x=1'), true);
    assert.equal(isHttpUrl('http://127.0.0.1:3000/cb'), true);
    for (const s of ['ftp://x', '/relative', 'javascript:alert(1)', 'https://', 'not a url'])
      assert.equal(isHttpUrl(s), false, s);
  });
  it('parses MMYY with months 01–12', () => {
    assert.deepEqual(parseMmYy('0128'), { year: 2028, month: 1 });
    assert.deepEqual(parseMmYy('1299'), { year: 2099, month: 12 });
    for (const s of ['1328', '0028', '128', '01/28', 'ab12', '012028']) assert.equal(parseMmYy(s), null, s);
  });
  it('compares months in the configured time zone', () => {
    // 2026-11-30 21:00 UTC is already December 1st in Tbilisi (UTC+4).
    const now = new Date('2026-11-30T21:00:00Z');
    assert.equal(isMonthInPast({ year: 2026, month: 11 }, now, 'Asia/Tbilisi'), true);
    assert.equal(isMonthInPast({ year: 2026, month: 11 }, now, 'UTC'), false);
    assert.equal(isMonthInPast({ year: 2026, month: 12 }, now, 'Asia/Tbilisi'), false);
    assert.equal(isMonthInPast({ year: 2025, month: 12 }, now, 'UTC'), true);
  });
});

describe('method sets', () => {
  const std = { currency: 'GEL', preAuth: false, saveCard: false, split: false };
  it('offers every merchant method the request allows', () => {
    assert.deepEqual(defaultMethods([4, 5, 7, 8, 9, 14], std), [4, 5, 7, 8, 9, 14]);
    assert.deepEqual(defaultMethods([5, 8], { ...std, currency: 'USD' }), [5]);
    assert.deepEqual(defaultMethods([4, 5, 7, 8, 9, 14], { ...std, preAuth: true }), [4, 5, 7, 8, 9]);
    assert.deepEqual(defaultMethods([4, 5, 7, 8, 9, 14], { ...std, saveCard: true }), [5, 14]);
    assert.deepEqual(defaultMethods([4, 5, 7, 8, 9, 14], { ...std, split: true }), [4, 5, 7, 9, 14]);
    assert.deepEqual(defaultMethods([5], { ...std, saveCard: true }), [5]);
  });
  it('explains each refusal', () => {
    assert.match(methodRefusal(8, { ...std, currency: 'EUR' })!, /GEL only/);
    assert.match(methodRefusal(11, std)!, /not a method a customer/);
    assert.match(methodRefusal(99, std)!, /not a method a customer/);
    assert.match(methodRefusal(8, { ...std, split: true })!, /split/);
    assert.match(methodRefusal(14, { ...std, preAuth: true })!, /preAuth/);
    // saveCard: only methods that yield a card the acquirer can keep (card, Google Pay).
    for (const m of [4, 7, 8, 9]) assert.match(methodRefusal(m, { ...std, saveCard: true })!, /saveCard/);
    assert.equal(methodRefusal(5, { ...std, saveCard: true, preAuth: true, split: true }), null);
    assert.equal(methodRefusal(14, { ...std, saveCard: true, split: true }), null);
  });
});
