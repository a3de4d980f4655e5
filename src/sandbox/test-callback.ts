// POST /sandbox/v1/callbacks/test: sends one signed test callback to a URL of the merchant's
// (src/callbacks/test-callback.ts, which the dashboard uses too).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { EXAMPLES } from '../api/examples.ts';
import { errorResponses } from '../api/schemas.ts';
import { sendTestCallback } from '../callbacks/test-callback.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { Services } from '../services.ts';
import { mayActOn, targetClientId, type sandboxAuth } from './auth.ts';

export function testCallbackRoute(scope: FastifyInstance, s: Services, auth: ReturnType<typeof sandboxAuth>): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/callbacks/test',
    {
      onRequest: auth,
      config: { operation: 'sandbox' },
      schema: {
        summary: 'Send a signed test callback',
        description:
          'To `url` (must be under a registered callback address) or the merchant’s default callback URL. Body `{"PaymentId":"test_…"}`, signed like every callback. With merchant credentials `clientId` may be left out (it is the merchant’s own; another merchant’s is 404).',
        tags: ['Sandbox'],
        body: Type.Object(
          { clientId: Type.Optional(Type.String()), url: Type.Optional(Type.String()) },
          { examples: [EXAMPLES.testCallbackBody] },
        ),
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
      const { url } = request.body;
      const clientId = targetClientId(request, request.body.clientId);
      const merchant = clientId.length <= 64 && mayActOn(request, clientId) ? await s.merchants.byId(clientId) : null;
      if (!merchant) throw gatewayError(ERRORS.merchantNotFound, { detail: `No merchant ${clientId}` });
      return sendTestCallback(s, merchant, url);
    },
  );
}
