// Merchant payment endpoints: create (SPEC 4) and get (SPEC 5).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { createPayment, type CreatedPayment } from '../../payments/create-payment.ts';
import { getPayment } from '../../payments/get-payment.ts';
import { listPayments } from '../../payments/search-payments.ts';
import { watchConformanceFetch } from '../../sandbox/conformance.ts';
import { forRequest, type Services } from '../../services.ts';
import { merchantAuth } from '../auth.ts';
import { idempotent } from '../idempotency.ts';
import { PaymentListQuery, PaymentListResponse } from '../schemas-list.ts';
import {
  CreatePaymentBody,
  CreatePaymentResponse,
  Headers,
  PayIdParams,
  PaymentResponse,
  PostHeaders,
  errorResponses,
} from '../schemas.ts';
import { createdView, paymentLinks, paymentView } from '../views.ts';

export function paymentRoutes(scope: FastifyInstance, s: Services, productPath: string, hide: boolean): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const authenticate = merchantAuth(s.merchants, s.tokens);
  const links = (payId: string) => paymentLinks(s.config.publicUrl, productPath, payId);

  app.post(
    '/payments',
    {
      onRequest: authenticate,
      config: { operation: 'create-payment' },
      schema: {
        hide,
        summary: 'Create a payment',
        description:
          'Standard or split (merchant enrolled in split and `extra` an IBAN). The customer pays at `links[1].uri` (approval_url).',
        tags: ['Payments'],
        headers: PostHeaders,
        body: CreatePaymentBody,
        response: { 200: CreatePaymentResponse, ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent<CreatedPayment>(
        s,
        request,
        reply,
        async (uow) => {
          const created = await createPayment(forRequest(s, request), request.merchant, request.body, uow);
          s.metrics.paymentsCreated.inc();
          return created;
        },
        (created) => ({ status: 200, body: createdView(created, links(created.payId)) }),
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
    async (request) => {
      const { clientId } = request.merchant;
      const { payId } = request.params;
      // The sandbox's callback conformance run watches for the merchant's fetches.
      const details = await watchConformanceFetch(s, clientId, payId, () =>
        getPayment(forRequest(s, request), clientId, payId),
      );
      return paymentView(details, links(payId));
    },
  );

  app.get(
    '/payments',
    {
      onRequest: authenticate,
      config: { operation: 'list-payments' },
      schema: {
        hide,
        summary: 'Search payments (Karibche extension)',
        description:
          'Newest first. Filters combine with AND; amounts are decimal like everywhere else; `from` inclusive, `to` exclusive. Pass `nextCursor` back as `cursor` for the next page; null when there is none.',
        tags: ['Payments'],
        headers: Headers,
        querystring: PaymentListQuery,
        response: { 200: PaymentListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const page = await listPayments(forRequest(s, request), request.merchant.clientId, request.query);
      return { items: page.items.map((p) => paymentView(p, links(p.payId))), nextCursor: page.nextCursor };
    },
  );
}
