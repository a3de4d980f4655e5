// The customer's input rules (rules/customer.ts): what the checkout forms and sandbox simulate accept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bankLoginInput, challengeCode, checkCardInput, formEcho } from './customer.ts';
import { POLICY } from './policy.ts';

const NOW = { year: 2026, month: 11 };
const card = (over: Record<string, string> = {}) =>
  checkCardInput(
    { number: '4111 1111 1111 1111', expiry: '12/30', securityCode: '123', holder: 'Nino Beridze', ...over },
    NOW,
  );

describe('what a customer types', () => {
  it('accepts a card and folds its spacing', () => {
    const r = card({ holder: '  Nino   Beridze ' });
    assert.deepEqual(r, {
      ok: true,
      card: { number: '4111111111111111', expMonth: 12, expYear: 2030, securityCode: '123', holder: 'Nino Beridze' },
    });
  });

  it('refuses each card field by the policy, every problem at once', () => {
    const r = card({
      number: '4111111111111112',
      expiry: `12/${NOW.year + POLICY.cardExpiryYearsAhead + 1}`,
      securityCode: '12',
      holder: 'N',
    });
    assert.deepEqual(r, {
      ok: false,
      problems: {
        number: 'invalid_number',
        expiry: 'invalid_expiry',
        securityCode: 'invalid_security_code',
        holder: 'missing_holder',
      },
    });
    assert.deepEqual(card({ expiry: '10/26' }), { ok: false, problems: { expiry: 'expired' } });
    assert.deepEqual(card({ securityCode: '12345' }), {
      ok: false,
      problems: { securityCode: 'invalid_security_code' },
    });
  });

  it('refuses a holder name with any control character (C1 too), markup, a lone surrogate or over the maximum', () => {
    for (const holder of [
      'Nino 4556737586899855',
      'Nino\u0085Beridze',
      'Nino\u0000B',
      'Nino\u009bB',
      '<b>Nino</b>',
      'Nino \ud800',
      'N'.repeat(POLICY.cardHolderMaxLength + 1),
    ]) {
      assert.deepEqual(card({ holder }), { ok: false, problems: { holder: 'missing_holder' } }, JSON.stringify(holder));
    }
    assert.equal(card({ holder: 'ნინო ბერიძე' }).ok, true, 'any script');
  });

  it('takes bank credentials only when they can be someone’s', () => {
    assert.deepEqual(bankLoginInput({ username: ' demo ', password: 'demo' }), { username: 'demo', password: 'demo' });
    for (const login of [
      { username: 'de\u0000mo', password: 'demo' },
      { username: 'demo', password: 'de\nmo' },
      { username: 'd'.repeat(POLICY.bankLoginMaxLength + 1), password: 'x' },
    ]) {
      assert.equal(bankLoginInput(login), null, JSON.stringify(login));
    }
  });

  it('trims the 3-D Secure code the same way for the page and simulate; no code is an empty one', () => {
    assert.equal(challengeCode(' 1234 '), '1234');
    assert.equal(challengeCode('12\u000034'), '');
    assert.equal(challengeCode('1'.repeat(POLICY.challengeCodeMaxLength + 1)), '');
    assert.equal(challengeCode(undefined), '');
  });

  it('echoes typed text without control characters or lone surrogates, within the field', () => {
    assert.equal(formEcho('Ni\u0000no\u0085 \u001b[31m', 100), 'Nino [31m');
    assert.equal(formEcho('ab\ud800c', 100), 'abc');
    assert.equal(formEcho('ნინო', 2), 'ნი');
    assert.equal(
      formEcho('Nino 4556 7375 8689 9855', 100),
      'Nino ••••9855',
      'a card number in the wrong field is masked',
    );
  });
});
