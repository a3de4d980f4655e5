// POST /sandbox/v1/callbacks/test: sends one signed callback to a URL of the merchant's, so a
// developer can check their receiver and signature verification before any payment.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { adminAuth } from '../admin/auth.ts';
import { ERRORS } from '../api/errors.ts';
import { problem } from '../api/problem.ts';
import { errorResponses } from '../api/schemas.ts';
import { sendCallback, sendOptionsFor } from '../callbacks/send.ts';
import { activeSecrets } from '../callbacks/signature.ts';
import { randomHex } from '../payments/ids.ts';
import type { Services } from '../services.ts';

export function testCallbackRoute(app: FastifyInstance, s: Services): void {
  app.post(
    '/callbacks/test',
    {
      onRequest: adminAuth(s.config, s.db),
      config: { operation: 'sandbox' },
      schema: {
        summary: 'Send a signed test callback',
        description: 'To `url` (must start with a registered prefix) or the merchant’s default callback URL. Body `{"PaymentId":"test_…"}`, signed like every callback.',
        tags: ['Sandbox'],
        body: Type.Object({ clientId: Type.String(), url: Type.Optional(Type.String()) }),
        response: {
          200: Type.Object({
            callbackId: Type.String(),
            paymentId: Type.String(),
            url: Type.String(),
            httpStatus: Type.Union([Type.Integer(), Type.Null()]),
            error: Type.Union([Type.String(), Type.Null()]),
            durationMs: Type.Integer(),
            response: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { clientId, url } = request.body as { clientId: string; url?: string };
      const merchant = clientId.length <= 64 ? await s.merchants.byId(clientId) : null;
      if (!merchant) throw problem(ERRORS.merchantNotFound, { detail: `No merchant ${clientId}` });
      const target = url ?? merchant.defaultCallbackUrl;
      if (!target) throw problem(ERRORS.invalidRequest, { detail: 'url is required: the merchant has no default callback URL', invalidParams: [{ name: 'url', reason: 'is required' }] });
      if (url !== undefined && !merchant.callbackUrlPrefixes.some((p) => url.startsWith(p))) {
        throw problem(ERRORS.callbackUrlNotRegistered, { invalidParams: [{ name: 'url', reason: 'must start with a registered callback URL prefix' }] });
      }
      const paymentId = `test_${randomHex(12)}`;
      const callbackId = `evt_test_${randomHex(8)}`;
      const now = s.clock.now();
      const r = await sendCallback(
        target,
        paymentId,
        { callbackId, sequence: 1, secrets: activeSecrets(merchant, now), timestamp: Math.floor(now.getTime() / 1000) },
        sendOptionsFor(s.config),
      );
      return { callbackId, paymentId, url: target, httpStatus: r.httpStatus, error: r.error, durationMs: r.durationMs, response: r.excerpt };
    },
  );
}
