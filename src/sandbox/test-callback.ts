// POST /sandbox/v1/callbacks/test: sends one signed callback to a URL of the merchant's, so a
// developer can check their receiver and signature verification before any payment.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { adminAuth } from '../admin/auth.ts';
import { errorResponses } from '../api/schemas.ts';
import { isRegisteredCallbackUrl } from '../callbacks/addresses.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError, invalidField } from '../errors/gateway-error.ts';
import { sendCallback, sendOptionsFor } from '../callbacks/send.ts';
import { activeSecrets } from '../callbacks/signature.ts';
import { randomHex } from '../payments/ids.ts';
import type { Services } from '../services.ts';

export function testCallbackRoute(scope: FastifyInstance, s: Services): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/callbacks/test',
    {
      onRequest: adminAuth(s.config, s.db),
      config: { operation: 'sandbox' },
      schema: {
        summary: 'Send a signed test callback',
        description: 'To `url` (must be under a registered callback address) or the merchant’s default callback URL. Body `{"PaymentId":"test_…"}`, signed like every callback.',
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
      const { clientId, url } = request.body;
      const merchant = clientId.length <= 64 ? await s.merchants.byId(clientId) : null;
      if (!merchant) throw gatewayError(ERRORS.merchantNotFound, { detail: `No merchant ${clientId}` });
      const target = url ?? merchant.defaultCallbackUrl;
      if (!target) throw invalidField('url', 'is required: the merchant has no default callback URL');
      if (!isRegisteredCallbackUrl(target, merchant.callbackUrlPrefixes)) {
        throw invalidField('url', 'must be under one of the callback addresses registered for this merchant', ERRORS.callbackUrlNotRegistered);
      }
      const paymentId = `test_${randomHex(12)}`;
      const callbackId = `evt_test_${randomHex(8)}`;
      const r = await sendCallback(
        target,
        paymentId,
        { callbackId, sequence: 1, secrets: activeSecrets(merchant, s.clock.now()), timestamp: Math.floor(Date.now() / 1000) },
        sendOptionsFor(s.config),
      );
      return { callbackId, paymentId, url: target, httpStatus: r.httpStatus, error: r.error, durationMs: r.durationMs, response: r.excerpt };
    },
  );
}
