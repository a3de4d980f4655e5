// The request log never stores a secret or a card number, whatever field or text it hides in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { newCallbackSecret } from '../merchants/credentials.ts';
import { cardNumbersIn } from '../payments/card.ts';
import { MAX_STORED_BODY, redactBody, redactUrl, truncate } from './redact.ts';

describe('request log redaction', () => {
  it('removes whole Standard Webhooks secrets (base64 with + / =) from free text', () => {
    for (let i = 0; i < 50; i++) {
      const secret = newCallbackSecret();
      const stored = redactBody({ note: `my secret is ${secret} ok` })!;
      assert.ok(!stored.includes(secret.slice(6, 20)) && !stored.includes(secret.slice(-12)), stored);
      assert.match(stored, /whsec_\[redacted\] ok/);
    }
  });

  it('redacts secret-named fields and masks card-like numbers to the last four', () => {
    const stored = redactBody(JSON.stringify({ clientSecret: 'kbs_x', description: 'card 4111 1111 1111 1111' }))!;
    assert.ok(!stored.includes('kbs_x') && !stored.includes('4111 1111 1111'), stored);
    assert.match(stored, /••••1111/);
  });

  it('leaves no card number and no secret in any text made of digits, separators and secret prefixes', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        '4111111111111111',
        '5555 5555 5555 4444',
        '4000-0000-0000-0002',
        'kbs_Ab9',
        'whsec_x+/=',
        ' ',
        '-',
        '_',
        'a',
        '.',
      ),
      fc.stringMatching(/^\d{1,6}$/),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        for (const stored of [redactBody(text)!, redactBody({ note: text })!]) {
          if (!stored) continue;
          assert.deepEqual(cardNumbersIn(stored), [], stored);
          assert.ok(!/kbs_Ab9|whsec_x/.test(stored), stored);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('masks every card number the history checker would find: in JSON numbers, inside longer text, with separators', () => {
    for (const body of [
      { amount: 4111111111111111 },
      { note: 'x-4111-1111-1111-1111-y' },
      { note: '1 5555 5555 5555 4444 0' },
      '4000000000000002 in plain text',
    ]) {
      const stored = redactBody(typeof body === 'string' ? body : JSON.stringify(body))!;
      assert.deepEqual(cardNumbersIn(stored), [], stored);
    }
  });

  it('stores a clean body as sent, and one that could hide something the slow way', () => {
    const response =
      '{"payId":"3c5f28b86ec853f6a1b2c3d4e5f60718","status":"Created","amount":25.4,"links":[{"uri":"http://127.0.0.1:8080/checkout/3c5f28b86ec853f6a1b2c3d4e5f60718"}]}';
    assert.equal(redactBody(response), response, 'the very text');
    assert.equal(
      redactBody({ amount: { currency: 'GEL', total: '25.40' }, returnurl: 'https://shop.example/r' }),
      '{"amount":{"currency":"GEL","total":"25.40"},"returnurl":"https://shop.example/r"}',
    );
    // Escapes join what the text scan sees apart: the parsed value is a card number, the key a secret's.
    const escaped = '{"note":"4111\\u00201111\\u00201111\\u00201111","client\\u005fsecret":"kbs_zz"}';
    const stored = redactBody(escaped)!;
    assert.deepEqual(cardNumbersIn(stored), [], stored);
    assert.ok(!stored.includes('kbs_zz'), stored);
    assert.equal(JSON.parse(stored).client_secret, '[redacted]');
    // A secret-named field with nothing card- or secret-like in its value is still redacted.
    assert.equal(redactBody('{"access_token":"eyJhbGciOi.e30.sig"}'), '{"access_token":"[redacted]"}');
    assert.equal(redactBody({ password: 'hunter2' }), '{"password":"[redacted]"}');
  });

  it('agrees with field-by-field redaction on any JSON value (the text shortcut changes nothing but whitespace)', () => {
    const leaf = fc.oneof(
      fc.constantFrom(
        '4111111111111111',
        '4111 1111 1111 1111',
        'kbs_Ab9',
        'whsec_x',
        'access_token',
        'a_b',
        '12345678901',
        '1234-5678-9012',
        '\u0000',
      ),
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    );
    const key = fc.oneof(
      fc.constantFrom(
        'token',
        'clientSecret',
        'pan',
        'note',
        'amount',
        'card_number',
        'x_y',
        'note 4111111111111111',
        '{"client_secret":"zzhiddenzz"}',
        'kbs_Ab9',
      ),
      fc.string({ maxLength: 6 }),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(key, tie('v'), { maxKeys: 3 }),
      ),
    })).v;
    fc.assert(
      // A body is an object or an array (a string passed in is a text body, not a JSON value).
      fc.property(fc.oneof(fc.dictionary(key, value, { maxKeys: 4 }), fc.array(value, { maxLength: 3 })), (v) => {
        const text = JSON.stringify(v);
        if (text === undefined) return;
        const fromText = redactBody(text);
        const fromValue = redactBody(v);
        const pretty = redactBody(JSON.stringify(v, null, 2));
        assert.deepEqual(JSON.parse(fromText!), JSON.parse(fromValue!));
        assert.deepEqual(JSON.parse(pretty!), JSON.parse(fromValue!));
        for (const stored of [fromText!, fromValue!, pretty!]) {
          assert.deepEqual(cardNumbersIn(stored), [], stored);
          assert.ok(!/zzhiddenzz|kbs_Ab9/.test(stored), stored);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('scrubs keys too: a JSON document posted as a form is one key, with its card number and secret', () => {
    const formParsed = {
      '{"amount":4111111111111111,"client_secret":"hunter2"}': '',
      kbs_abcdef: 'x',
      'note 5555 5555 5555 4444': 1,
      plain_name: 'kept',
    };
    const stored = redactBody(formParsed)!;
    assert.deepEqual(cardNumbersIn(stored), [], stored);
    assert.ok(!stored.includes('hunter2') && !stored.includes('kbs_abcdef'), stored);
    assert.deepEqual(Object.keys(JSON.parse(stored)), ['[redacted]', 'kbs_[redacted]', 'note ••••4444', 'plain_name']);
    // Two keys scrubbed to the same text both stay.
    assert.deepEqual(Object.keys(JSON.parse(redactBody({ 'a 4111111111111111': 1, 'a 5555555555551111': 2 })!)), [
      'a ••••1111',
      'a ••••1111 (2)',
    ]);
  });

  it('cuts a long body without leaving the head of a longer digit run that reads as a card number', () => {
    const run = '41111111111111112345'; // 20 digits: no card number; its first 16 are one
    const body = `${'x'.repeat(MAX_STORED_BODY - 17)} ${run} and more`;
    assert.deepEqual(cardNumbersIn(body), []);
    assert.deepEqual(cardNumbersIn(`${body.slice(0, MAX_STORED_BODY)}…`), ['4111111111111111'], 'the naive cut');
    const stored = redactBody(body)!;
    assert.deepEqual(cardNumbersIn(stored), [], stored.slice(-40));
    assert.ok(stored.endsWith('x…') && stored.length <= MAX_STORED_BODY + 1, stored.slice(-40));
    assert.equal(truncate('short', 10), 'short');
    assert.equal(truncate('0123456789abc', 10), '0123456789…');
    assert.equal(truncate('ab 0123456789012', 10), 'ab…');
    assert.equal(truncate('abcdefghij klm', 10), 'abcdefghij…');
  });

  it('redacts URLs: card numbers in the path or query however encoded, secret-named parameters; a clean URL as it is', () => {
    const clean = '/v1/gateway/payments/3c5f28b86ec853f6a1b2c3d4e5f60718?limit=10&status=Succeeded';
    assert.equal(redactUrl(clean), clean);
    assert.equal(redactUrl('/v1/gateway/payments'), '/v1/gateway/payments');
    assert.equal(
      redactUrl('/checkout/4111111111111111?number=4111%201111%201111%201111&client_secret=abc&x=1'),
      '/checkout/••••1111?number=••••1111&client_secret=[redacted]&x=1',
    );
    assert.equal(redactUrl('/p/%34%31%31%31%31%31%31%31%31%31%31%31%31%31%31%31'), '/p/••••1111');
    assert.equal(redactUrl('/p?token=kbs_x&note=my%20kbs_secret1'), '/p?token=[redacted]&note=my kbs_[redacted]');
    // A card only in the text as sent ("4111…1111" then an escaped 4): what is logged is the decoded
    // text, scrubbed (a run of 12-19 digits is masked whatever it is).
    assert.equal(redactUrl('/p/4111111111111111%34'), '/p/••••1114');
    const piece = fc.oneof(
      fc.constantFrom(
        '4111111111111111',
        '5555 5555 5555 4444',
        '4000-0000-0000-0002',
        '%34%31%31%31%31%31%31%31%31%31%31%31%31%31%31%31',
        '+',
        ' ',
        '-',
        '%20',
        '/',
        '?',
        '&',
        '=',
        'client_secret=',
        'kbs_Ab9',
        '%',
        'a',
      ),
      fc.stringMatching(/^\d{1,6}$/),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const url = `/v1/${pieces.join('')}`;
        const logged = redactUrl(url);
        let text = logged;
        try {
          text = decodeURIComponent(logged.replace(/\+/g, ' ').replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
        } catch {
          // as logged
        }
        for (const form of [logged, text]) {
          assert.deepEqual(cardNumbersIn(form), [], `${url} -> ${logged}`);
          assert.ok(!form.includes('kbs_Ab9'), `${url} -> ${logged}`);
        }
      }),
      { numRuns: 5000 },
    );
  });
});
