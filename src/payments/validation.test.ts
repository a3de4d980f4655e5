import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Merchant } from '../merchants/merchant.ts';
import { validateCreatePayment, type CreatePaymentInput, type RuleContext } from './validation.ts';

const merchant = {
  clientId: 'kc1',
  name: 'Shop',
  status: 'active',
  currencies: ['GEL', 'USD', 'EUR'],
  methods: [4, 5, 7, 8, 9, 14],
  splitEnrolled: true,
  saveCardEnabled: true,
  defaultCallbackUrl: null,
  callbackUrlPrefixes: ['https://shop.example/cb'],
  testMode: false,
  testAmountLimit: 10_000,
  brandColor: null,
  logoUrl: null,
} as unknown as Merchant;

const ctx = (over: Partial<Merchant> = {}): RuleContext => ({
  merchant: { ...merchant, ...over },
  maxAmountMinor: 100_000_000,
  bankCode: 'KB',
  now: new Date('2026-11-22T10:00:00Z'),
  timeZone: 'Asia/Tbilisi',
});
const body = (over: Partial<CreatePaymentInput> = {}): CreatePaymentInput => ({
  amount: { currency: 'GEL', total: 10 },
  returnurl: 'https://shop.example/r',
  ...over,
});

function errorsOf(input: CreatePaymentInput, c = ctx()) {
  const r = validateCreatePayment(input, c);
  assert.equal(r.ok, false, 'expected a rejection');
  return (r as { errors: { field: string; reason: string; rule: { nnn: string } }[] }).errors.map((e) => `${e.field}:${e.rule.nnn}`);
}

describe('validateCreatePayment', () => {
  it('computes the total from subtotal + tax + shipping when it is omitted', () => {
    const r = validateCreatePayment(body({ amount: { currency: 'gel', subtotal: '10.10', tax: 2.2, shipping: '0.7' } }), ctx());
    assert.ok(r.ok);
    assert.equal(r.payment.amount, 1300);
    assert.equal(r.payment.currency, 'GEL');
    assert.deepEqual([r.payment.subtotal, r.payment.tax, r.payment.shipping], [1010, 220, 70]);
  });

  it('keeps a given total even when the components do not add up', () => {
    const r = validateCreatePayment(body({ amount: { currency: 'GEL', total: 5, subtotal: 100 } }), ctx());
    assert.ok(r.ok);
    assert.equal(r.payment.amount, 500);
  });

  it('applies the defaults', () => {
    const r = validateCreatePayment(body(), ctx());
    assert.ok(r.ok);
    assert.equal(r.payment.expirationMinutes, 12);
    assert.equal(r.payment.language, 'KA');
    assert.deepEqual(r.payment.methods, [4, 5, 7, 9, 14]); // 8 is not offered without products
    assert.equal(r.payment.split, null);
  });

  it('requires the total or its components, > 0 unless saveCard', () => {
    assert.deepEqual(errorsOf(body({ amount: { currency: 'GEL' } })), ['amount.total:001']);
    assert.deepEqual(errorsOf(body({ amount: { currency: 'GEL', total: 0 } })), ['amount.total:010']);
    assert.ok(validateCreatePayment(body({ amount: { currency: 'GEL', total: 0 }, saveCard: true }), ctx()).ok);
    assert.deepEqual(errorsOf(body({ amount: { currency: 'GEL', total: '1000000.01' } })), ['amount.total:010']);
  });

  it('checks installment products add up exactly, in minor units', () => {
    const products = [
      { name: 'A', price: '0.10', quantity: 3 },
      { name: 'B', price: 0.2, quantity: 1 },
    ];
    const ok = validateCreatePayment(body({ amount: { currency: 'GEL', total: '0.50' }, methods: [8], installmentProducts: products }), ctx());
    assert.ok(ok.ok);
    assert.deepEqual(ok.payment.installmentProducts, [
      { name: 'A', price: 10, quantity: 3 },
      { name: 'B', price: 20, quantity: 1 },
    ]);
    assert.deepEqual(errorsOf(body({ amount: { currency: 'GEL', total: '0.51' }, methods: [8], installmentProducts: products })), ['installmentProducts:015']);
    assert.deepEqual(errorsOf(body({ methods: [8] })), ['installmentProducts:015']);
    assert.deepEqual(errorsOf(body({ methods: [8], installmentProducts: [{ price: 0, quantity: 0 }] })), [
      'installmentProducts[0].price:001',
      'installmentProducts[0].quantity:001',
    ]);
    // Default methods with products that match: installment is offered.
    const dflt = validateCreatePayment(body({ amount: { currency: 'GEL', total: '0.50' }, installmentProducts: products }), ctx());
    assert.ok(dflt.ok && dflt.payment.methods.includes(8));
  });

  it('applies the split rules', () => {
    const iban = 'GE60KB0000000101904917';
    const ok = validateCreatePayment(body({ extra: iban, extra2: '9.90' }), ctx());
    assert.ok(ok.ok);
    assert.deepEqual(ok.payment.split, { iban, amount: 990 });
    assert.deepEqual(ok.payment.methods, [4, 5, 7, 9, 14]);
    assert.deepEqual(errorsOf(body({ extra: iban, extra2: '9.91' })), ['extra2:021']); // > 99%
    assert.deepEqual(errorsOf(body({ extra: iban, extra2: '10.01' })), ['extra2:021']); // > total
    assert.deepEqual(errorsOf(body({ extra: iban, extra2: '0' })), ['extra2:021']);
    assert.deepEqual(errorsOf(body({ extra: iban })), ['extra2:023']);
    assert.deepEqual(errorsOf(body({ extra2: '1' })), ['extra:023']);
    assert.deepEqual(errorsOf(body({ extra: 'GE61KB0000000101904917', extra2: '1' })), ['extra:019']);
    assert.deepEqual(errorsOf(body({ extra: 'GE64TB0000000101904917', extra2: '1' })), ['extra:020']);
    assert.deepEqual(errorsOf(body({ extra: iban, extra2: '1', amount: { currency: 'USD', total: 10 } })), ['amount.currency:022']);
    assert.deepEqual(errorsOf(body({ extra: iban, extra2: '1', methods: [8], installmentProducts: [{ price: 10, quantity: 1 }] })), ['methods[0]:013']);
  });

  it('treats extra/extra2 as free ANSI text when the merchant is not enrolled in split', () => {
    const c = ctx({ splitEnrolled: false });
    const ok = validateCreatePayment(body({ extra: 'Invoice 42', extra2: 'anything' }), c);
    assert.ok(ok.ok);
    assert.equal(ok.payment.split, null);
    assert.deepEqual(errorsOf(body({ extra: 'x'.repeat(26) }), c), ['extra:001']);
    assert.deepEqual(errorsOf(body({ extra2: 'x'.repeat(53) }), c), ['extra2:001']);
    assert.deepEqual(errorsOf(body({ extra: 'ქართ' }), c), ['extra:001']);
  });

  it('reports every invalid field at once', () => {
    const errs = errorsOf(
      body({
        amount: { currency: 'JPY', total: '1.234' },
        returnurl: 'nope',
        expirationMinutes: 0,
        language: 'DE',
        description: 'x'.repeat(31),
        userIpAddress: '300.1.1.1',
        saveCardToDate: '1399',
      }),
    );
    assert.deepEqual(errs.sort(), [
      'amount.currency:001',
      'amount.total:001',
      'description:001',
      'expirationMinutes:001',
      'language:001',
      'returnurl:001',
      'saveCardToDate:001',
      'userIpAddress:001',
    ]);
  });

  it('enforces the merchant settings', () => {
    assert.deepEqual(errorsOf(body({ amount: { currency: 'EUR', total: 1 } }), ctx({ currencies: ['GEL'] })), ['amount.currency:011']);
    assert.deepEqual(errorsOf(body({ methods: [4] }), ctx({ methods: [5] })), ['methods[0]:012']);
    assert.deepEqual(errorsOf(body({ saveCard: true }), ctx({ saveCardEnabled: false })), ['saveCard:017']);
    assert.deepEqual(errorsOf(body({ amount: { currency: 'GEL', total: '100.01' } }), ctx({ testMode: true })), ['amount.total:024']);
    assert.ok(validateCreatePayment(body({ amount: { currency: 'GEL', total: '100.00' } }), ctx({ testMode: true })).ok);
    assert.deepEqual(errorsOf(body({ callbackUrl: 'https://evil.example/cb' })), ['callbackUrl:016']);
    assert.deepEqual(errorsOf(body({ amount: { currency: 'USD', total: 1 }, saveCard: true }), ctx({ methods: [4, 9] })), ['methods:014']);
  });

  it('checks saveCardToDate against the current month', () => {
    assert.deepEqual(errorsOf(body({ saveCard: true, saveCardToDate: '1026' })), ['saveCardToDate:018']);
    const ok = validateCreatePayment(body({ saveCard: true, saveCardToDate: '1126' }), ctx());
    assert.ok(ok.ok && ok.payment.saveCardToDate === '1126' && !ok.payment.methods.includes(4));
    assert.deepEqual(errorsOf(body({ saveCard: true, methods: [9] })), ['methods[0]:013']);
  });
});
