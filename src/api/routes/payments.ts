// Merchant payment endpoints: create (SPEC 4) and get (SPEC 5).
import type { FastifyInstance } from 'fastify';
import { createPayment } from '../../payments/create.ts';
import { getPayment } from '../../payments/get.ts';
import type { CreatePaymentInput } from '../../payments/validation.ts';
import type { Services } from '../../services.ts';
import { merchantAuth } from '../auth.ts';
import { idempotent } from '../idempotency.ts';
import { CreatePaymentBody, CreatePaymentResponse, Headers, PayIdParams, PaymentResponse, PostHeaders, errorResponses } from '../schemas.ts';

export function paymentRoutes(app: FastifyInstance, s: Services, productPath: string, hide: boolean): void {
  const authenticate = merchantAuth(s.merchants, s.tokens);

  app.post(
    '/payments',
    {
      onRequest: authenticate,
      config: { operation: 'create-payment' },
      schema: {
        hide,
        summary: 'Create a payment',
        description:
          'Standard or split (merchant enrolled in split and `extra`/`extra2` sent). The customer pays at `links[1].uri` (approval_url).',
        tags: ['Payments'],
        headers: PostHeaders,
        body: CreatePaymentBody,
        response: { 200: CreatePaymentResponse, ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent(s.db, s.clock, request, reply, (scope) =>
        createPayment(s, request.merchant, request.body as CreatePaymentInput, productPath, scope),
      ),
  );

  app.get(
    '/payments/:payId',
    {
      onRequest: authenticate,
      config: { operation: 'get-payment' },
      schema: {
        hide,
        summary: 'Get a payment',
        tags: ['Payments'],
        headers: Headers,
        params: PayIdParams,
        response: { 200: PaymentResponse, ...errorResponses },
      },
    },
    (request) => getPayment(s, request.merchant.clientId, (request.params as { payId: string }).payId, productPath),
  );
}
