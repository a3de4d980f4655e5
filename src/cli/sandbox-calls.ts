// The sandbox tools the developer commands use (simulate, clock). Simulate takes the operator's
// admin token when this machine has one (KARIBCHE_ADMIN_TOKEN or the data dir's admin-token), and
// the merchant's credentials otherwise, or when the gateway refuses that token (a remote gateway).
// The clock is moved with the merchant's credentials: its own clock, nobody else's (issue 15).
import type { Payment, SimulateRequest } from '../../sdk/src/index.ts';
import { KaribcheError } from '../../sdk/src/index.ts';
import { findAdminToken } from './admin-token.ts';
import type { Context } from './developer.ts';

async function sandboxPost<T>(ctx: Context, path: string, body: unknown): Promise<T> {
  const token = findAdminToken();
  if (token) {
    try {
      return await ctx.client.request<T>({
        method: 'POST',
        path,
        body,
        auth: false,
        headers: { authorization: `Bearer ${token}` },
      });
    } catch (err) {
      if (!(err instanceof KaribcheError && err.status === 401)) throw err;
    }
  }
  return ctx.client.request<T>({ method: 'POST', path, body });
}

export const simulate = (ctx: Context, payId: string, body: SimulateRequest) =>
  sandboxPost<Payment>(ctx, `/sandbox/v1/payments/${encodeURIComponent(payId)}/simulate`, body);

/** Moves the merchant's own sandbox clock (merchant credentials): other merchants' time stays. */
export const advanceClock = (ctx: Context, seconds: number) =>
  ctx.client.request<{ now: string; offsetSeconds: number; expired: number }>({
    method: 'POST',
    path: '/sandbox/v1/clock',
    body: { advanceSeconds: seconds },
  });

/** One line about a payment: id, status, amount, result. */
export const paymentLine = (
  p: Pick<Payment, 'payId' | 'status' | 'amount' | 'currency'> & { resultCode?: string | null },
) =>
  `${p.payId}  ${p.status.padEnd(27)} ${String(p.amount).padStart(9)} ${p.currency}${p.resultCode ? `  ${p.resultCode}` : ''}`;
