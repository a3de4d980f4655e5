// fast-check model-based commands: each does one thing to the real gateway over HTTP (create, pay
// by simulate or by the checkout form, 3-D Secure, refund, void, completion, saved-card charge and
// deletion, clock advance, restart), asks the reference model what must happen, and then compares
// every payment the model knows with what get-payment answers.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { businessDay } from '../../payments/business-day.ts';
import { parseAmount } from '../../payments/money.ts';
import { MerchantClient, SPLIT_IBAN, accessToken, type TestGateway } from '../harness.ts';
import {
  BLOCK_DAYS,
  EXPIRATION_MINUTES,
  canComplete,
  offeredActions,
  cardHolder,
  cancel,
  complete,
  expireDue,
  planCancel,
  pay,
  splitPart,
  type Model,
} from './reference.ts';

export interface Real {
  t: TestGateway;
  m: MerchantClient;
  timeZone: string;
  /** The cookies of a dashboard user of the merchant, signed in (sessions run on real time). */
  dashboardCookie: string;
}

const decimal = (minor: number) => (minor / 100).toFixed(2); // test-side rendering of a request amount
/** An amount the API answered (decimal, like the API) in minor units, read as the gateway reads amounts: never through floating point. null is 0. */
const minorOf = (v: unknown): number => {
  if (v === null) return 0;
  const parsed = parseAmount(v);
  return parsed.ok ? parsed.minor : NaN;
};
// The merchant's business day: its own sandbox clock (the gateway clock plus the merchant's offset).
const today = (r: Real) => businessDay(r.t.clock.forMerchant(r.m.credentials.clientId).now(), r.timeZone);

export const CARDS = {
  approve: { card: '4111111111111111', approved: true, otp: undefined, blockDays: BLOCK_DAYS },
  decline: { card: '4000000000000002', approved: false, otp: undefined, blockDays: BLOCK_DAYS },
  insufficientFunds: { card: '4000000000009995', approved: false, otp: undefined, blockDays: BLOCK_DAYS },
  threeDsPass: { card: '4000000000003220', approved: true, otp: '1234', blockDays: BLOCK_DAYS },
  threeDsFail: { card: '4000000000003220', approved: false, otp: '0000', blockDays: BLOCK_DAYS },
  shortBlock: { card: '4000000000000838', approved: true, otp: undefined, blockDays: 7 },
} as const;

/** The methods the model's merchant enables (EVERYTHING) other than the card, paid by simulate or their form. */
export const SPOT_METHODS = [4, 7, 8, 9, 14] as const;
export type SpotMethod = (typeof SPOT_METHODS)[number];

/**
 * What a payment offers (SPEC 3 and 4), written from the spec: the merchant's methods, the default
 * set when `methods` is omitted — installment only in GEL, not split, with products; Google Pay
 * purchase only; with saveCard only the card and Google Pay.
 */
export function offeredMethods(o: {
  methods: 'card' | 'default';
  currency: string;
  split: boolean;
  preAuth: boolean;
  saveCard: boolean;
  installment: boolean;
}): number[] {
  if (o.methods === 'card') return [5];
  return [4, 5, 7, 8, 9, 14].filter(
    (m) =>
      !(m === 8 && (o.currency !== 'GEL' || o.split || !o.installment)) &&
      !(m === 14 && o.preAuth) &&
      !(o.saveCard && m !== 5 && m !== 14),
  );
}
export type CardName = keyof typeof CARDS;

/** After every step: each payment's status and amounts as the model says, one final event per final entry. */
export async function verify(model: Model, r: Real, step: string): Promise<void> {
  r.m.token = await accessToken(r.t.app, r.m.credentials); // tokens age with the sandbox clock
  for (const p of model.payments) {
    const res = await r.m.getPayment(p.payId);
    assert.equal(res.statusCode, 200, `${step}: get ${p.payId}: ${res.body}`);
    const got = res.json();
    const what = `${step}: ${p.payId} (${p.preAuth ? 'preAuth ' : ''}${p.saveCard ? 'saveCard ' : ''}${p.split !== null ? 'split ' : ''}${decimal(p.amount)})`;
    assert.equal(got.status, p.status, `${what}: status`);
    assert.equal(minorOf(got.amount), p.amount, `${what}: amount`);
    assert.equal(minorOf(got.confirmedAmount), p.confirmed, `${what}: confirmedAmount`);
    assert.equal(minorOf(got.returnedAmount), p.returned, `${what}: returnedAmount`);
    if (p.split !== null) {
      assert.equal(minorOf(got.split?.amount), p.split, `${what}: split amount`);
      assert.equal(minorOf(got.split?.returnedAmount), p.splitReturned, `${what}: split returned`);
    }
    const card = cardHolder(p).card;
    assert.equal(
      got.recurringCard ? 'active' : 'not active',
      card === 'active' ? 'active' : 'not active',
      `${what}: saved card (${card})`,
    );
    if (got.recurringCard) p.recId = got.recurringCard.recId;
    const { rows } = await r.t.gw.services.db.query<{ n: number; attempts: number }>(
      'SELECT (SELECT count(*)::int FROM payment_events WHERE pay_id = $1 AND final) AS n, (SELECT attempts FROM payments WHERE pay_id = $1) AS attempts',
      [p.payId],
    );
    assert.equal(rows[0]!.n, p.finalEntries, `${what}: final events`);
    assert.equal(rows[0]!.attempts, p.attempts, `${what}: attempts`);
  }
  await verifyDashboard(model, r, step);
}

type Cmd = fc.AsyncCommand<Model, Real, false>;

/** Payments whose get-payment showed a saved card (its recId), active or not any more. */
const hasSavedCard = (m: Readonly<Model>) => m.payments.some((p) => p.recId !== null);
const savedCardAt = (m: Model, pick: number) => {
  const owners = m.payments.filter((p) => p.recId !== null);
  return owners[pick % owners.length]!;
};

class Create implements Cmd {
  constructor(
    readonly o: {
      total: number;
      preAuth: boolean;
      saveCard: boolean;
      split: boolean;
      currency: 'GEL' | 'USD' | 'EUR';
      methods: 'card' | 'default';
      installment: boolean;
    },
  ) {}
  check = () => true;
  async run(model: Model, r: Real) {
    const split = this.o.split && this.o.currency === 'GEL' ? Math.max(1, Math.floor(this.o.total / 3)) : null;
    const currency = split !== null ? 'GEL' : this.o.currency;
    const body = {
      amount: { currency, total: Number(decimal(this.o.total)) },
      returnurl: 'https://shop.example/return',
      expirationMinutes: EXPIRATION_MINUTES,
      preAuth: this.o.preAuth,
      saveCard: this.o.saveCard,
      ...(this.o.methods === 'card' ? { methods: [5] } : {}),
      ...(this.o.installment
        ? { installmentProducts: [{ name: 'Model item', price: decimal(this.o.total), quantity: 1 }] }
        : {}),
      ...(split !== null ? { extra: SPLIT_IBAN, extra2: decimal(split) } : {}),
    };
    const res = await r.m.createPayment(body);
    assert.equal(res.statusCode, 200, `${this}: ${res.body}`);
    const methods = offeredMethods({ ...this.o, currency, split: split !== null });
    model.payments.push({
      payId: res.json().payId,
      amount: this.o.total,
      preAuth: this.o.preAuth,
      saveCard: this.o.saveCard,
      split,
      methods,
      status: 'Created',
      confirmed: 0,
      returned: 0,
      splitReturned: 0,
      attempts: 0,
      createdAtMs: model.nowMs,
      paidDay: null,
      blockUntilMs: null,
      cancelledOnDay: new Set(),
      released: false,
      card: 'none',
      recId: null,
      cardOwner: null,
      finalEntries: 0,
      expectsCallbacks: true,
    });
    const { rows } = await r.t.gw.services.db.query<{ methods: number[] }>(
      'SELECT methods FROM payments WHERE pay_id = $1',
      [res.json().payId],
    );
    assert.deepEqual(
      [...rows[0]!.methods].sort((a, b) => a - b),
      methods,
      `${this}: offered methods`,
    );
    await verify(model, r, String(this));
  }
  toString = () => `create(${JSON.stringify(this.o)})`;
}

class Pay implements Cmd {
  constructor(readonly o: { pick: number; card: CardName; via: 'simulate' | 'form' }) {}
  check = (m: Readonly<Model>) => m.payments.length > 0;
  async run(model: Model, r: Real) {
    const p = model.payments[this.o.pick % model.payments.length]!;
    const card = CARDS[this.o.card];
    const payable = p.status === 'Created';
    if (this.o.via === 'simulate') {
      const res = await r.t.admin('POST', `/sandbox/v1/payments/${p.payId}/simulate`, {
        method: 5,
        card: card.card,
        ...(card.otp ? { otp: card.otp } : {}),
      });
      if (payable) assert.equal(res.statusCode, 200, `${this}: ${res.body}`);
      else
        assert.ok(
          res.statusCode >= 400 && res.statusCode < 500,
          `${this} on ${p.status}: ${res.statusCode} ${res.body}`,
        );
    } else {
      const page = await r.t.app.inject({ method: 'GET', url: `/checkout/${p.payId}?lang=en` });
      assert.ok(page.statusCode < 500, `${this}: page ${page.statusCode}`);
      const token = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
      const cookie = String(page.headers['set-cookie'] ?? '').split(';')[0]!;
      if (!payable) {
        assert.equal(
          token === undefined || !/name="number"/.test(page.body),
          true,
          `${this}: a ${p.status} payment still offers the card form`,
        );
      } else {
        assert.ok(token, `${this}: no form on a Created payment`);
        const form = (fields: Record<string, string>) => ({
          cookie,
          'content-type': 'application/x-www-form-urlencoded',
          payload: new URLSearchParams({ csrf: token!, ...fields }).toString(),
        });
        const send = async (url: string, fields: Record<string, string>) => {
          const f = form(fields);
          const res = await r.t.app.inject({
            method: 'POST',
            url,
            headers: { cookie: f.cookie, 'content-type': f['content-type'] },
            payload: f.payload,
          });
          assert.ok(res.statusCode < 500, `${this}: ${url} ${res.statusCode} ${res.body.slice(0, 200)}`);
          assert.ok(res.statusCode !== 429 && res.statusCode !== 403, `${this}: ${url} ${res.statusCode}`);
          return res;
        };
        await send(`/checkout/${p.payId}/pay?lang=en`, {
          method: '5',
          number: card.card,
          expiry: '12/30',
          securityCode: '123',
          holder: 'Model Customer',
        });
        if (card.otp) await send(`/checkout/${p.payId}/3ds?lang=en`, { code: card.otp });
      }
    }
    if (payable) pay(p, card.approved, today(r), model.nowMs, card.blockDays);
    await verify(model, r, String(this));
  }
  toString = () => `pay(${JSON.stringify(this.o)})`;
}

/** Paying by a method other than the card: the sandbox's simulate, or the method's own form. */
class PayBy implements Cmd {
  constructor(readonly o: { pick: number; method: SpotMethod; approve: boolean; via: 'simulate' | 'form' }) {}
  check = (m: Readonly<Model>) => m.payments.length > 0;
  async run(model: Model, r: Real) {
    const p = model.payments[this.o.pick % model.payments.length]!;
    const { method, approve } = this.o;
    const attempts = p.status === 'Created' && p.methods.includes(method);
    if (this.o.via === 'simulate') {
      const res = await r.t.admin('POST', `/sandbox/v1/payments/${p.payId}/simulate`, {
        method,
        outcome: approve ? 'approve' : 'decline',
      });
      if (attempts) assert.equal(res.statusCode, 200, `${this}: ${res.body}`);
      else
        assert.ok(
          res.statusCode >= 400 && res.statusCode < 500,
          `${this} on ${p.status} offering ${p.methods}: ${res.statusCode} ${res.body}`,
        );
    } else {
      const page = await r.t.app.inject({ method: 'GET', url: `/checkout/${p.payId}?lang=en&method=${method}` });
      assert.ok(page.statusCode < 500, `${this}: page ${page.statusCode}`);
      const token = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
      const cookie = String(page.headers['set-cookie'] ?? '').split(';')[0]!;
      const send = async (url: string, fields: Record<string, string>) => {
        const res = await r.t.app.inject({
          method: 'POST',
          url,
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ csrf: token ?? '', ...fields }).toString(),
        });
        assert.ok(res.statusCode < 500, `${this}: ${url} ${res.statusCode} ${res.body.slice(0, 200)}`);
        // Neither refused by the rate limit nor by the CSRF check: the form was read.
        if (token) assert.ok(res.statusCode !== 429 && res.statusCode !== 403, `${this}: ${url} ${res.statusCode}`);
        return res;
      };
      if (method === 4) {
        // The QR code's address opens the (simulated) banking app, whose buttons answer.
        const app = /\/checkout\/[0-9a-f]+\/qr\/[^"?&]+/.exec(page.body)?.[0];
        assert.equal(
          app !== undefined,
          attempts,
          `${this}: the QR code is shown exactly when Web QR is offered on a Created payment`,
        );
        if (app) {
          // Opened on the customer's phone: the banking app's page has its own form token.
          const appPage = await r.t.app.inject({ method: 'GET', url: app, headers: { cookie } });
          const appToken = /name="csrf" value="([^"]+)"/.exec(appPage.body)?.[1];
          assert.ok(appToken, `${this}: the banking app's page has a form`);
          const res = await r.t.app.inject({
            method: 'POST',
            url: app,
            headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({ csrf: appToken, outcome: approve ? 'approve' : 'decline' }).toString(),
          });
          assert.equal(res.statusCode, 200, `${this}: ${app} ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
      } else if (method === 7) {
        await send(`/checkout/${p.payId}/pay`, { method: '7', username: approve ? 'demo' : 'empty', password: 'demo' });
      } else {
        await send(`/checkout/${p.payId}/pay`, {
          method: String(method),
          outcome: approve ? 'approve' : 'decline',
          ...(method === 8 ? { term: '12' } : {}),
        });
      }
    }
    if (attempts) pay(p, approve, today(r), model.nowMs);
    await verify(model, r, String(this));
  }
  toString = () => `payBy(${JSON.stringify(this.o)})`;
}

class Cancel implements Cmd {
  constructor(readonly o: { pick: number; part: 'full' | 'half' | 'cent' }) {}
  check = (m: Readonly<Model>) => m.payments.length > 0;
  async run(model: Model, r: Real) {
    const p = model.payments[this.o.pick % model.payments.length]!;
    const held = p.status === 'WaitingConfirm' ? p.amount : p.confirmed;
    const left = held - p.returned;
    const amount = this.o.part === 'full' ? null : this.o.part === 'half' ? Math.floor(left / 2) : 1;
    const day = today(r);
    const plan = planCancel(p, amount, day, model.nowMs);
    const asked = plan.ok ? plan.amount : (amount ?? left);
    const part = splitPart(p, asked);
    const body = {
      ...(amount !== null ? { amount: decimal(amount) } : {}),
      ...(p.split !== null ? { extra: SPLIT_IBAN, extra2: decimal(part) } : {}),
    };
    const res = await r.m.post(`/v1/gateway/payments/${p.payId}/cancel`, body);
    if (plan.ok) {
      assert.equal(res.statusCode, 200, `${this} on ${p.status} (left ${left}): ${res.body}`);
      cancel(p, plan.amount, part, day);
    } else assert.equal(res.statusCode, 400, `${this} on ${p.status} (left ${left}) must be refused: ${res.body}`);
    await verify(model, r, String(this));
  }
  toString = () => `cancel(${JSON.stringify(this.o)})`;
}

class Complete implements Cmd {
  constructor(readonly o: { pick: number; part: 'full' | 'half' }) {}
  check = (m: Readonly<Model>) => m.payments.length > 0;
  async run(model: Model, r: Real) {
    const p = model.payments[this.o.pick % model.payments.length]!;
    const amount = this.o.part === 'full' ? p.amount : Math.max(1, Math.floor(p.amount / 2));
    const res = await r.m.post(`/v1/gateway/payments/${p.payId}/completion`, { amount: decimal(amount) });
    if (canComplete(p, amount, today(r), model.nowMs)) {
      assert.equal(res.statusCode, 200, `${this} on ${p.status}: ${res.body}`);
      complete(p, amount);
    } else assert.equal(res.statusCode, 400, `${this} on ${p.status} must be refused: ${res.body}`);
    await verify(model, r, String(this));
  }
  toString = () => `complete(${JSON.stringify(this.o)})`;
}

class ChargeSavedCard implements Cmd {
  constructor(readonly o: { pick: number }) {}
  check = hasSavedCard;
  async run(model: Model, r: Real) {
    const p = savedCardAt(model, this.o.pick);
    const res = await r.m.post('/v1/gateway/payments/execution', {
      recId: p.recId,
      money: { amount: '1.00', currency: 'GEL' },
      initiator: 'merchant',
    });
    if (cardHolder(p).card === 'active') {
      assert.equal(res.statusCode, 200, `${this}: ${res.body}`);
      const charged = res.json();
      assert.equal(charged.status, 'Succeeded', `${this}: ${res.body}`);
      model.payments.push({
        payId: charged.payId,
        amount: 100,
        preAuth: false,
        saveCard: false,
        split: null,
        methods: [11],
        status: 'Succeeded',
        confirmed: 100,
        returned: 0,
        splitReturned: 0,
        attempts: 1,
        createdAtMs: model.nowMs,
        paidDay: today(r),
        blockUntilMs: null,
        cancelledOnDay: new Set(),
        released: false,
        card: 'none',
        recId: null,
        cardOwner: cardHolder(p),
        finalEntries: 1,
        expectsCallbacks: true,
      });
    } else
      assert.ok(
        res.statusCode >= 400 && res.statusCode < 500,
        `${this} with a ${cardHolder(p).card} card must be refused: ${res.statusCode} ${res.body}`,
      );
    await verify(model, r, String(this));
  }
  toString = () => `chargeSavedCard(${JSON.stringify(this.o)})`;
}

class DeleteSavedCard implements Cmd {
  constructor(readonly o: { pick: number }) {}
  check = hasSavedCard;
  async run(model: Model, r: Real) {
    const p = savedCardAt(model, this.o.pick);
    const res = await r.m.post(`/v1/gateway/payments/${p.recId}/delete`, {});
    assert.equal(res.statusCode, 200, `${this}: ${res.body}`); // deleting again is also 200 (§9)
    cardHolder(p).card = 'deleted';
    await verify(model, r, String(this));
  }
  toString = () => `deleteSavedCard(${JSON.stringify(this.o)})`;
}

/**
 * The dashboard's offer on every payment's page is what the model (checked against the API after
 * every step) says the API accepts now: the page decides on the merchant's clock, as the API does.
 */
async function verifyDashboard(model: Model, r: Real, step: string): Promise<void> {
  const day = today(r);
  for (const p of model.payments) {
    const page = await r.t.app.inject({
      method: 'GET',
      url: `/dashboard/payments/${p.payId}`,
      headers: { cookie: r.dashboardCookie },
    });
    assert.equal(page.statusCode, 200, `${step}: dashboard ${p.payId}: ${page.statusCode}`);
    const offered = [
      ...page.body.matchAll(new RegExp(`action="/dashboard/payments/${p.payId}/(refund|complete|void)"`, 'g')),
    ]
      .map((m) => m[1]!)
      .sort();
    assert.deepEqual(
      offered,
      offeredActions(p, day, model.nowMs),
      `${step}: the dashboard offers ${offered.join(', ') || 'nothing'} for ${p.payId} (${p.status}, paid ${p.paidDay}, today ${day})`,
    );
  }
}

class Advance implements Cmd {
  /** `merchant`: the merchant's own sandbox clock (merchant credentials), else the gateway's (admin token). */
  constructor(
    readonly seconds: number,
    readonly clock: 'gateway' | 'merchant' = 'gateway',
  ) {}
  // Across business days and past block windows (7 days for 0838, 30 otherwise), within 40 days.
  check = (m: Readonly<Model>) => m.nowMs - MODEL_START + this.seconds * 1000 < 40 * 86_400_000;
  async run(model: Model, r: Real) {
    const res =
      this.clock === 'gateway'
        ? await r.t.admin('POST', '/sandbox/v1/clock', { advanceSeconds: this.seconds })
        : await r.m.post('/sandbox/v1/clock', { advanceSeconds: this.seconds });
    assert.equal(res.statusCode, 200, res.body);
    model.nowMs += this.seconds * 1000;
    expireDue(model);
    await verify(model, r, String(this));
  }
  toString = () => `advance(${this.seconds}s, ${this.clock})`;
}

class Restart implements Cmd {
  check = () => true;
  async run(model: Model, r: Real) {
    await r.t.restart();
    r.m = new MerchantClient(r.t.app, r.m.credentials, await accessToken(r.t.app, r.m.credentials));
    model.restarts++;
    await verify(model, r, String(this));
  }
  toString = () => 'restart()';
}

/** A payment created and paid at once (a payment left unpaid expires at the first clock step). */
class CreateAndPay implements Cmd {
  constructor(
    readonly create: Create,
    readonly card: CardName,
  ) {}
  check = () => true;
  async run(model: Model, r: Real) {
    await this.create.run(model, r);
    await new Pay({ pick: model.payments.length - 1, card: this.card, via: 'simulate' }).run(model, r);
  }
  toString = () => `${this.create}+pay(${this.card})`;
}

/** Model time starts at 0 for each run; only differences matter. */
export const MODEL_START = 0;

const createArb = fc
  .record({
    total: fc.constantFrom(100, 1050, 9999, 2),
    preAuth: fc.boolean(),
    saveCard: fc.boolean(),
    split: fc.boolean(),
    currency: fc.constantFrom('GEL' as const, 'USD' as const, 'EUR' as const),
    methods: fc.constantFrom('card' as const, 'default' as const),
    installment: fc.boolean(),
  })
  .map((o) => new Create(o));

/**
 * The merchant's own clock against the dashboard (issue 26, class d): payments paid, refunded in
 * part and completed while the merchant's sandbox clock moves by hours, days and past block
 * windows — verify() compares every payment page's offer with what the API accepts after each step.
 */
const cancelArb = fc
  .record({ pick: fc.nat(20), part: fc.constantFrom('half' as const, 'cent' as const) })
  .map((o) => new Cancel(o));
const merchantAdvanceArb = fc.constantFrom(3_600, 86_400, 8 * 86_400).map((s) => new Advance(s, 'merchant'));
const createAndPayArb = fc
  .tuple(createArb, fc.constantFrom<CardName>('approve', 'shortBlock'))
  .map(([create, card]) => new CreateAndPay(create, card));
export const merchantClockCommandArbs = [
  createAndPayArb,
  createAndPayArb,
  cancelArb,
  cancelArb,
  fc.record({ pick: fc.nat(20), part: fc.constantFrom('full' as const, 'half' as const) }).map((o) => new Complete(o)),
  merchantAdvanceArb,
  merchantAdvanceArb,
];

export const commandArbs = [
  createArb,
  fc
    .record({
      pick: fc.nat(20),
      card: fc.constantFrom<CardName>(
        'approve',
        'approve',
        'decline',
        'insufficientFunds',
        'threeDsPass',
        'threeDsFail',
        'shortBlock',
      ),
      via: fc.constantFrom('simulate' as const, 'form' as const),
    })
    .map((o) => new Pay(o)),
  fc
    .record({
      pick: fc.nat(20),
      method: fc.constantFrom(...SPOT_METHODS),
      approve: fc.boolean(),
      via: fc.constantFrom('simulate' as const, 'form' as const),
    })
    .map((o) => new PayBy(o)),
  fc
    .record({
      pick: fc.nat(20),
      card: fc.constantFrom<CardName>('approve', 'decline'),
      via: fc.constant('simulate' as const),
    })
    .map((o) => new Pay(o)),
  fc
    .record({ pick: fc.nat(20), part: fc.constantFrom('full' as const, 'half' as const, 'cent' as const) })
    .map((o) => new Cancel(o)),
  fc.record({ pick: fc.nat(20), part: fc.constantFrom('full' as const, 'half' as const) }).map((o) => new Complete(o)),
  fc.record({ pick: fc.nat(20) }).map((o) => new ChargeSavedCard(o)),
  fc.record({ pick: fc.nat(20) }).map((o) => new DeleteSavedCard(o)),
  fc
    .tuple(fc.constantFrom(600, 3_600, 86_400, 3 * 86_400), fc.constantFrom('gateway' as const, 'merchant' as const))
    .map(([s, clock]) => new Advance(s, clock)),
  fc.constant(new Restart()),
];
