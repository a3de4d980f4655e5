// A signed test callback to one of the merchant's URLs, so a developer can check their receiver
// and signature verification before any payment. Used by the sandbox endpoint and the dashboard;
// it goes through sendCallback like every callback (in production: the address guard, no private
// addresses), and only to a URL under one of the merchant's registered callback addresses.
import { ERRORS } from '../errors/catalogue.ts';
import { invalidField } from '../errors/gateway-error.ts';
import type { Merchant } from '../merchants/merchant.ts';
import { randomHex } from '../payments/ids.ts';
import { resolveCallbackUrl } from './addresses.ts';
import { sendCallback, sendOptionsFor } from './send.ts';
import { activeSecrets } from './signature.ts';

export interface TestCallback {
  callbackId: string;
  paymentId: string;
  url: string;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  response: string | null;
}

/** Sends `{"PaymentId":"test_…"}` to `url`, or (undefined) to the merchant’s default callback URL. */
export async function sendTestCallback(
  s: { clock: { now(): Date }; config: Parameters<typeof sendOptionsFor>[0] },
  merchant: Merchant,
  url: string | undefined,
): Promise<TestCallback> {
  const target = url ?? merchant.defaultCallbackUrl;
  if (!target) throw invalidField('url', 'is required: the merchant has no default callback URL');
  const verdict = resolveCallbackUrl(target, merchant.callbackUrlPrefixes);
  if (!verdict.ok)
    throw invalidField('url', verdict.reason, verdict.unregistered ? ERRORS.callbackUrlNotRegistered : undefined);
  const paymentId = `test_${randomHex(12)}`;
  const callbackId = `evt_test_${randomHex(8)}`;
  const r = await sendCallback(
    target,
    paymentId,
    {
      callbackId,
      sequence: 1,
      secrets: activeSecrets(merchant, s.clock.now()),
      timestamp: Math.floor(Date.now() / 1000),
    },
    sendOptionsFor(s.config),
  );
  return {
    callbackId,
    paymentId,
    url: target,
    httpStatus: r.httpStatus,
    error: r.error,
    durationMs: r.durationMs,
    response: r.excerpt,
  };
}
