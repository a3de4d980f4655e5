import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CreatePaymentBody } from './schemas.ts';
import { normalizeBody } from './lenient.ts';

describe('lenient binding', () => {
  it('matches names case-insensitively, drops nulls and unknown fields, recursing into objects and arrays', () => {
    const out = normalizeBody(
      {
        Amount: { Currency: 'GEL', subTotal: '10.50', TAX: null },
        returnUrl: 'https://x.example',
        InstallmentProducts: [{ Name: 'A', Price: 1, Quantity: 2, Colour: 'red' }],
        unknown: 1,
        callbackurl: null,
      },
      CreatePaymentBody,
      true,
    );
    assert.deepEqual(out, {
      amount: { currency: 'GEL', subtotal: '10.50' },
      returnurl: 'https://x.example',
      installmentProducts: [{ name: 'A', price: 1, quantity: 2 }],
    });
  });
  it('keeps nulls when asked (the admin API clears settings with null)', () => {
    assert.deepEqual(normalizeBody({ ReturnURL: null }, CreatePaymentBody, false), { returnurl: null });
  });
  it('leaves non-objects for the schema to reject', () => {
    assert.equal(normalizeBody('x', CreatePaymentBody, true), 'x');
    assert.deepEqual(normalizeBody({ amount: 5 }, CreatePaymentBody, true), { amount: 5 });
  });
  it('prefers the first non-null spelling of a field', () => {
    assert.deepEqual(normalizeBody({ returnurl: 'a', returnUrl: 'b' }, CreatePaymentBody, true), { returnurl: 'a' });
    assert.deepEqual(normalizeBody({ returnurl: null, returnUrl: 'b' }, CreatePaymentBody, true), { returnurl: 'b' });
  });
});
