// `karibche trigger <scenario>`: creates a payment and drives it through a named lifecycle, the way
// a customer and the merchant would (sandbox simulate, cancel, completion), so a merchant's
// callback handler or `karibche listen` sees each status change happen.
import type { CreatePaymentRequest, Payment } from '../../sdk/src/index.ts';
import type { Context } from './developer.ts';
import { CliError } from './errors.ts';
import { advanceClock, paymentLine, simulate } from './sandbox-calls.ts';

const APPROVED = '4111111111111111';
const DECLINED = '4000000000000002';
/** Enough declined attempts to use up any configured attempt limit. */
const MAX_DECLINES = 10;

type Step = (ctx: Context, order: CreatePaymentRequest) => Promise<Payment>;

async function created(ctx: Context, order: CreatePaymentRequest): Promise<string> {
  const p = await ctx.client.payments.create(order);
  ctx.progress(`created   ${paymentLine(p)}`);
  return p.payId;
}

async function paid(ctx: Context, payId: string, card = APPROVED): Promise<Payment> {
  const p = await simulate(ctx, payId, { method: 5, card });
  ctx.progress(`paid      ${paymentLine(p)}  (card ${card.slice(0, 4)} … ${card.slice(-4)})`);
  return p;
}

const expect = (p: Payment, status: string) => {
  if (p.status !== status) throw new CliError(`${p.payId} is ${p.status}, expected ${status}`);
  return p;
};

export const SCENARIOS: Record<string, Step> = {
  paid: async (ctx, order) => expect(await paid(ctx, await created(ctx, order)), 'Succeeded'),
  refunded: async (ctx, order) => {
    const p = expect(await paid(ctx, await created(ctx, order)), 'Succeeded');
    const r = await ctx.client.payments.cancel(p.payId);
    ctx.progress(`refunded  ${p.payId}  ${r.status} (${r.returnedAmount} ${p.currency} returned)`);
    return expect(await ctx.client.payments.get(p.payId), 'Returned');
  },
  'preauth-completed': async (ctx, order) => {
    const p = expect(await paid(ctx, await created(ctx, { ...order, preAuth: true })), 'WaitingConfirm');
    const c = await ctx.client.payments.complete(p.payId, { amount: p.amount });
    ctx.progress(`completed ${p.payId}  ${c.status} (${c.confirmedAmount} ${p.currency} captured)`);
    return expect(await ctx.client.payments.get(p.payId), 'Succeeded');
  },
  failed: async (ctx, order) => {
    const payId = await created(ctx, order);
    for (let i = 0; i < MAX_DECLINES; i++) {
      const p = await paid(ctx, payId, DECLINED);
      if (p.status === 'Failed') return p;
      expect(p, 'Created'); // declined, the customer may try again
    }
    throw new CliError(`${payId} was declined ${MAX_DECLINES} times and is still not Failed`);
  },
  expired: async (ctx, order) => {
    const payId = await created(ctx, { ...order, expirationMinutes: 1 });
    const clock = await advanceClock(ctx, 61);
    ctx.progress(
      `clock     moved the sandbox clock forward 61 s to ${clock.now}: the merchant's own clock; other merchants' time does not move`,
    );
    // It stays moved (a sandbox clock never goes back): say so, and where to see it.
    ctx.progress(
      `          this merchant's clock is now ${clock.offsetSeconds} s ahead of real time and stays so: karibche clock shows it`,
    );
    return expect(await ctx.client.payments.get(payId), 'Expired');
  },
};

export async function trigger(ctx: Context, [scenario]: string[]): Promise<void> {
  const step = scenario ? SCENARIOS[scenario] : undefined;
  if (!step) throw new CliError(`karibche trigger takes a scenario: ${Object.keys(SCENARIOS).join(', ')}`);
  const order: CreatePaymentRequest = {
    amount: { currency: 'GEL', total: ctx.values.amount ?? '10' },
    returnurl: 'https://shop.example/return',
    merchantPaymentId: `trigger-${scenario}-${Date.now()}`,
    ...(ctx.values['callback-url'] ? { callbackUrl: ctx.values['callback-url'] } : {}),
  };
  const p = await step(ctx, order);
  ctx.show(p, () => `done      ${paymentLine(p)}`);
}
