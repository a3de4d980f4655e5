// `karibche payments list|get` and `karibche pay`: look at the merchant's payments and pay one as
// the customer would (the sandbox simulate endpoint, the same code path as the checkout page).
import type { Payment, SimulateRequest } from '../../sdk/src/index.ts';
import type { Context } from './developer.ts';
import { CliError } from './errors.ts';
import { paymentLine, simulate } from './sandbox-calls.ts';
import { checkoutMethods } from '../payments/methods.ts';
import { methodLabel } from '../payments/methods/index.ts';

export async function paymentsCommand(ctx: Context, [sub, payId]: string[]): Promise<void> {
  if (sub === 'list') {
    const page = await ctx.client.payments.list({ status: ctx.values.status, limit: ctx.values.limit });
    return ctx.show(page, () =>
      page.items.length ? page.items.map((p) => `${paymentLine(p)}  ${p.createdAt}`).join('\n') : 'no payments',
    );
  }
  if (sub === 'get') {
    if (!payId) throw new CliError('karibche payments get needs a PAY_ID');
    const p = await ctx.client.payments.get(payId);
    return ctx.show(p, () => describe(p));
  }
  throw new CliError(`unknown payments command "${sub ?? ''}" (list or get)`);
}

/** A payment as `karibche payments get` shows it: one field a line, the method by its name too. */
export function describe(p: Payment): string {
  const rows: [string, unknown][] = [
    ['payId', p.payId],
    ['status', p.status],
    ['amount', `${p.amount} ${p.currency}`],
    ['confirmedAmount', p.confirmedAmount],
    ['returnedAmount', p.returnedAmount],
    ['paymentMethod', p.paymentMethod == null ? null : `${p.paymentMethod} (${methodLabel(p.paymentMethod, 'en')})`],
    ['resultCode', p.resultCode],
    ['preAuth', p.preAuth],
    ['card', p.paymentCardNumber],
    ['merchantPaymentId', p.merchantPaymentId],
    ['createdAt', p.createdAt],
    ['expiresAt', p.expiresAt],
    ['checkout', p.links[1]?.uri],
  ];
  return rows
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k.padEnd(18)} ${v}`)
    .join('\n');
}

export async function payCommand(ctx: Context, [payId]: string[]): Promise<void> {
  if (!payId) throw new CliError('karibche pay needs a PAY_ID');
  const v = ctx.values;
  const method = v.method === undefined ? undefined : Number(v.method);
  if (method !== undefined && !Number.isInteger(method))
    throw new CliError(`--method takes a method number: ${checkoutMethods().join(', ')}`);
  if (v.outcome !== undefined && v.outcome !== 'approve' && v.outcome !== 'decline')
    throw new CliError('--outcome takes approve or decline');
  if (v.card === undefined && method === undefined && v.otp === undefined)
    throw new CliError('karibche pay needs --card NUMBER (or --method, or --otp to answer a 3-D Secure challenge)');
  const body: SimulateRequest = {
    method,
    card: v.card,
    otp: v.otp,
    expiry: v.expiry,
    cvc: v.cvc,
    outcome: v.outcome as SimulateRequest['outcome'],
    username: v.username,
    password: v.password,
  };
  // `--card 4000000000003220 --otp 1234` pays and answers the challenge in one call. When the card
  // was already given (the payment waits for its code), sending the card again would be a new
  // attempt on a payment in Processing, refused: the code alone answers the waiting challenge.
  const waiting =
    v.otp !== undefined &&
    (v.card !== undefined || method !== undefined) &&
    (await ctx.client.payments.get(payId)).status === 'Processing';
  if (waiting) ctx.progress(`${payId} is waiting for its 3-D Secure code: answering it with --otp ${v.otp}`);
  const sent = waiting ? { otp: v.otp } : body;
  const p = await simulate(ctx, payId, Object.fromEntries(Object.entries(sent).filter(([, x]) => x !== undefined)));
  ctx.show(p, () => {
    const waiting =
      p.status === 'Processing' ? `\nwaiting for the 3-D Secure code: karibche pay ${p.payId} --otp 1234` : '';
    const retry = p.status === 'Created' && p.resultCode ? '\ndeclined; the customer may try again' : '';
    return `${paymentLine(p)}${waiting}${retry}`;
  });
}
