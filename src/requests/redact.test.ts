// The request log never stores a secret or a card number, whatever field or text it hides in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { newCallbackSecret } from '../merchants/credentials.ts';
import { cardNumbersIn } from '../payments/card.ts';
import { redactBody } from './redact.ts';

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
      fc.constantFrom('4111111111111111', '5555 5555 5555 4444', '4000-0000-0000-0002', 'kbs_Ab9', 'whsec_x+/=', ' ', '-', '_', 'a', '.'),
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
    for (const body of [{ amount: 4111111111111111 }, { note: 'x-4111-1111-1111-1111-y' }, { note: '1 5555 5555 5555 4444 0' }, '4000000000000002 in plain text']) {
      const stored = redactBody(typeof body === 'string' ? body : JSON.stringify(body))!;
      assert.deepEqual(cardNumbersIn(stored), [], stored);
    }
  });

  it('stores a clean body as sent, and one that could hide something the slow way', () => {
    const response = '{"payId":"3c5f28b86ec853f6a1b2c3d4e5f60718","status":"Created","amount":25.4,"links":[{"uri":"http://127.0.0.1:8080/checkout/3c5f28b86ec853f6a1b2c3d4e5f60718"}]}';
    assert.equal(redactBody(response), response, 'the very text');
    assert.equal(redactBody({ amount: { currency: 'GEL', total: '25.40' }, returnurl: 'https://shop.example/r' }), '{"amount":{"currency":"GEL","total":"25.40"},"returnurl":"https://shop.example/r"}');
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
      fc.constantFrom('4111111111111111', '4111 1111 1111 1111', 'kbs_Ab9', 'whsec_x', 'access_token', 'a_b', '12345678901', '1234-5678-9012', '\u0000'),
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    );
    const key = fc.oneof(fc.constantFrom('token', 'clientSecret', 'pan', 'note', 'amount', 'card_number', 'x_y'), fc.string({ maxLength: 6 }));
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 3 })),
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
        for (const stored of [fromText!, fromValue!, pretty!]) assert.deepEqual(cardNumbersIn(stored), [], stored);
      }),
      { numRuns: 1000 },
    );
  });
});
