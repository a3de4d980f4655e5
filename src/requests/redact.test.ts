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
});
