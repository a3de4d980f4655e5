import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Merchant } from '../../merchants/merchant.ts';
import { checkCreatePayment, type CreatePaymentInput, type NewPayment } from './create.ts';
import type { RuleContext } from './policy.ts';

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

const ctx = (over: Partial<Merchant> = {}, production = false): RuleContext => ({
  merchant: { ...merchant, ...over },
  maxAmountMinor: 100_000_000,
  bankCode: 'KB',
  now: new Date('2026-11-22T10:00:00Z'),
  timeZone: 'Asia/Tbilisi',
  production,
});
const body = (over: Partial<CreatePaymentInput> = {}): CreatePaymentInput => ({
  amount: { currency: 'GEL', total: 10 },
  returnurl: 'https://shop.example/r',
  ...over,
});

function errorsOf(input: CreatePaymentInput, c = ctx()) {
  try {
    checkCreatePayment(input, c);
  } catch (err) {
    assert.ok(err instanceof GatewayError);
    return err.fields.map((e) => `${e.field}:${e.rule.nnn}`);
  }
  assert.fail('expected a rejection');
}

type Checked = { ok: true; payment: NewPayment } | { ok: false };
function validateCreatePayment(input: CreatePaymentInput, c: RuleContext): Checked {
  try {
    return { ok: true, payment: checkCreatePayment(input, c) };
  } catch (err) {
    if (err instanceof GatewayError) return { ok: false };
    throw err;
  }
}

describe('checkCreatePayment', () => {
  it('computes the total from subtotal + tax + shipping when it is omitted', () => {
    const r = validateCreatePayment(
      body({ amount: { currency: 'gel', subtotal: '10.10', tax: 2.2, shipping: '0.7' } }),
      ctx(),
    );
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
    const ok = validateCreatePayment(
      body({ amount: { currency: 'GEL', total: '0.50' }, methods: [8], installmentProducts: products }),
      ctx(),
    );
    assert.ok(ok.ok);
    assert.deepEqual(ok.payment.installmentProducts, [
      { name: 'A', price: 10, quantity: 3 },
      { name: 'B', price: 20, quantity: 1 },
    ]);
    assert.deepEqual(
      errorsOf(body({ amount: { currency: 'GEL', total: '0.51' }, methods: [8], installmentProducts: products })),
      ['installmentProducts:015'],
    );
    assert.deepEqual(errorsOf(body({ methods: [8] })), ['installmentProducts:015']);
    assert.deepEqual(errorsOf(body({ methods: [8], installmentProducts: [{ price: 0, quantity: 0 }] })), [
      'installmentProducts[0].price:010',
      'installmentProducts[0].quantity:001',
    ]);
    // Default methods with products that match: installment is offered.
    const dflt = validateCreatePayment(
      body({ amount: { currency: 'GEL', total: '0.50' }, installmentProducts: products }),
      ctx(),
    );
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
    assert.deepEqual(errorsOf(body({ extra: 'ge60 kb00 0000 0101 9049 17' })), ['extra2:023']); // an IBAN written with spaces
    // Only an IBAN-shaped extra makes a split payment: free text, an empty string (which SDKs always
    // send) or extra2 alone stay standard for an enrolled merchant.
    for (const standard of [
      { extra2: '1' },
      { extra: '' },
      { extra: '', extra2: '' },
      { extra: 'Invoice 42', extra2: 'anything' },
    ]) {
      const r = validateCreatePayment(body(standard), ctx());
      assert.ok(r.ok && r.payment.split === null, JSON.stringify(standard));
    }
    assert.deepEqual(errorsOf(body({ extra: 'ქართ' })), ['extra:001']);
    assert.deepEqual(errorsOf(body({ extra: 'GE61KB0000000101904917', extra2: '1' })), ['extra:019']);
    assert.deepEqual(errorsOf(body({ extra: 'GE64TB0000000101904917', extra2: '1' })), ['extra:020']);
    assert.deepEqual(errorsOf(body({ extra: iban, extra2: '1', amount: { currency: 'USD', total: 10 } })), [
      'amount.currency:022',
    ]);
    assert.deepEqual(
      errorsOf(body({ extra: iban, extra2: '1', methods: [8], installmentProducts: [{ price: 10, quantity: 1 }] })),
      ['methods[0]:013'],
    );
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

  it('refuses a card number in free text (card numbers are never stored), and keeps other digits', () => {
    assert.deepEqual(errorsOf(body({ description: 'card 4111 1111 1111 1111' })), ['description:001']);
    assert.deepEqual(errorsOf(body({ merchantPaymentId: '5555555555554444' })), ['merchantPaymentId:001']);
    assert.ok(
      validateCreatePayment(body({ merchantPaymentId: '4111111111111112', description: 'order 1732345678901' }), ctx())
        .ok,
    );
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
    assert.deepEqual(errorsOf(body({ amount: { currency: 'EUR', total: 1 } }), ctx({ currencies: ['GEL'] })), [
      'amount.currency:011',
    ]);
    assert.deepEqual(errorsOf(body({ methods: [4] }), ctx({ methods: [5] })), ['methods[0]:012']);
    assert.deepEqual(errorsOf(body({ saveCard: true }), ctx({ saveCardEnabled: false })), ['saveCard:017']);
    assert.deepEqual(errorsOf(body({ amount: { currency: 'GEL', total: '100.01' } }), ctx({ testMode: true })), [
      'amount.total:024',
    ]);
    assert.ok(
      validateCreatePayment(body({ amount: { currency: 'GEL', total: '100.00' } }), ctx({ testMode: true })).ok,
    );
    assert.deepEqual(errorsOf(body({ callbackUrl: 'https://evil.example/cb' })), ['callbackUrl:016']);
    assert.ok(validateCreatePayment(body({ callbackUrl: 'https://shop.example/cb/orders?id=1' }), ctx()).ok);
    assert.deepEqual(
      errorsOf(body({ amount: { currency: 'USD', total: 1 }, saveCard: true }), ctx({ methods: [4, 9] })),
      ['methods:014'],
    );
  });

  it('checks saveCardToDate against the current month', () => {
    assert.deepEqual(errorsOf(body({ saveCard: true, saveCardToDate: '1026' })), ['saveCardToDate:018']);
    const ok = validateCreatePayment(body({ saveCard: true, saveCardToDate: '1126' }), ctx());
    assert.ok(ok.ok && ok.payment.saveCardToDate === '1126' && !ok.payment.methods.includes(4));
    assert.deepEqual(errorsOf(body({ saveCard: true, methods: [9] })), ['methods[0]:013']);
  });

  it('allows saveCard only with methods that yield a card that can be saved (card, Google Pay)', () => {
    for (const m of [4, 7, 8, 9])
      assert.deepEqual(
        errorsOf(body({ saveCard: true, methods: [m], installmentProducts: [{ price: 10, quantity: 1 }] })),
        ['methods[0]:013'],
        `method ${m}`,
      );
    for (const m of [5, 14])
      assert.ok(validateCreatePayment(body({ saveCard: true, methods: [m] }), ctx()).ok, `method ${m}`);
    const dflt = validateCreatePayment(body({ saveCard: true }), ctx());
    assert.ok(dflt.ok);
    assert.deepEqual(dflt.payment.methods, [5, 14]);
  });

  it('offers in production only methods with a real acquirer path: the simulated flows are refused when asked for and left out by default', () => {
    const prod = ctx({ methods: [4, 5, 6, 7, 8, 9, 14] }, true);
    for (const m of [4, 6, 7, 8, 9, 14]) {
      assert.deepEqual(
        errorsOf(body({ methods: [m], installmentProducts: [{ price: 10, quantity: 1 }] }), prod),
        ['methods[0]:013'],
        `method ${m}`,
      );
    }
    const dflt = validateCreatePayment(body(), prod);
    assert.ok(dflt.ok);
    assert.deepEqual(dflt.payment.methods, [5]);
    assert.ok(validateCreatePayment(body({ methods: [5] }), prod).ok);
    // The sandbox offers every method the merchant enabled.
    const sandbox = validateCreatePayment(body(), ctx());
    assert.ok(sandbox.ok && sandbox.payment.methods.length > 1);
  });

  it('matches callbackUrl against the registered addresses as parsed URLs, not string prefixes', () => {
    const c = ctx({ callbackUrlPrefixes: ['http://localhost', 'http://127.0.0.1:3000', 'https://shop.example/cb'] });
    for (const ok of [
      'http://localhost/cb',
      'http://localhost:80/x',
      'http://127.0.0.1:3000/',
      'https://shop.example/cb',
      'https://shop.example/cb/',
      'https://shop.example/cb/a?b=c',
      'HTTPS://SHOP.EXAMPLE/cb/x',
    ]) {
      assert.ok(validateCreatePayment(body({ callbackUrl: ok }), c).ok, ok);
    }
    for (const bad of [
      'http://localhost.attacker.example/cb', // a longer host
      'http://127.0.0.1:3000@127.0.0.1:4000/x', // userinfo hiding the real port
      'http://user:pw@localhost/cb', // any userinfo
      'http://127.0.0.1:30001/cb', // another port sharing the prefix
      'http://127.0.0.1/cb', // the default port is another port
      'https://localhost/cb', // another scheme
      'https://shop.example/cbx', // not on a segment boundary
      'https://shop.example/cb/../admin', // dot segments resolved first
      'https://shop.example/other',
    ]) {
      assert.deepEqual(
        errorsOf(body({ callbackUrl: bad }), c),
        bad.includes('@') ? ['callbackUrl:001'] : ['callbackUrl:016'],
        bad,
      );
    }
  });
});
