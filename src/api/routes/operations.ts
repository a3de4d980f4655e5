// Everything a merchant does with a payment after it is paid: cancel (refund / void), completion,
// saved-card execution and delete (SPEC 7–9).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { PaymentDetails } from '../../payments/details.ts';
import { deleteSavedCard, type DeletedCard } from '../../payments/delete-saved-card.ts';
import { executeSavedCard } from '../../payments/execute-saved-card.ts';
import { cancelPayment, completePayment, type OperationOutcome } from '../../payments/cancel-and-complete.ts';
import { checkCancelRequest, checkCompletionRequest } from '../../payments/rules/cancel.ts';
import { forRequest, type Services } from '../../services.ts';
import { merchantAuth } from '../auth.ts';
import { idempotent } from '../idempotency.ts';
import {
  CancelBody,
  CancelResponse,
  CompletionBody,
  CompletionResponse,
  DeletedResponse,
  ExecutionBody,
  Headers,
  PayIdParams,
  PaymentResponse,
  PostHeaders,
  RecIdParams,
  errorResponses,
} from '../schemas.ts';
import { OK, operationView, paymentLinks, paymentView } from '../views.ts';

export function operationRoutes(scope: FastifyInstance, s: Services, productPath: string, hide: boolean): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const authenticate = merchantAuth(s.merchants, s.tokens);
  const tags = ['Payments'];
  const operation = (o: OperationOutcome) => ({ status: 200, body: operationView(o) });

  app.post(
    '/payments/:payId/cancel',
    {
      onRequest: authenticate,
      config: { operation: 'cancel-payment' },
      schema: {
        hide,
        summary: 'Cancel or refund a payment',
        description:
          'Succeeded / PartialReturned: refund `amount` (omitted: everything refundable). WaitingConfirm: void in full. On the day of the transaction (KARIBCHE_TIMEZONE) one partial cancel at most. Split payments also name `extra` (the split IBAN) and `extra2` (the amount taken from it).',
        tags,
        headers: PostHeaders,
        params: PayIdParams,
        body: CancelBody,
        response: { 200: CancelResponse, ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent<OperationOutcome>(
        s,
        request,
        reply,
        (uow) =>
          cancelPayment(
            forRequest(s, request),
            request.merchant.clientId,
            request.params.payId,
            checkCancelRequest(request.body),
            uow,
          ),
        operation,
      ),
  );

  app.post(
    '/payments/:payId/completion',
    {
      onRequest: authenticate,
      config: { operation: 'complete-payment' },
      schema: {
        hide,
        summary: 'Complete a pre-authorised payment',
        description:
          'From WaitingConfirm, within the block window: captures `amount` (≤ authorised, ≥ split amount); the rest of the block is released.',
        tags,
        headers: PostHeaders,
        params: PayIdParams,
        body: CompletionBody,
        response: { 200: CompletionResponse, ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent<OperationOutcome>(
        s,
        request,
        reply,
        (uow) =>
          completePayment(
            forRequest(s, request),
            request.merchant.clientId,
            request.params.payId,
            checkCompletionRequest(request.body),
            uow,
          ),
        operation,
      ),
  );

  app.post(
    '/payments/execution',
    {
      onRequest: authenticate,
      config: { operation: 'execute-payment' },
      schema: {
        hide,
        summary: 'Charge a saved card',
        description:
          'Synchronous: answers the payment (paymentMethod 11) as Succeeded, WaitingConfirm (preAuth) or Failed. Split cards reuse the IBAN and amount stored with the card.',
        tags,
        headers: PostHeaders,
        body: ExecutionBody,
        response: { 200: PaymentResponse, ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent<PaymentDetails>(
        s,
        request,
        reply,
        (uow) => executeSavedCard(forRequest(s, request), request.merchant, request.body, uow),
        (p: PaymentDetails) => ({
          status: 200,
          body: paymentView(p, paymentLinks(s.config.publicUrl, productPath, p.payId)),
        }),
      ),
  );

  const deleteSchema = {
    hide,
    summary: 'Delete a saved card',
    description: 'Deleting again is also 200; a deleted card cannot be charged.',
    tags,
    params: RecIdParams,
    response: { 200: DeletedResponse, ...errorResponses },
  };
  const deleted = () => ({ status: 200, body: OK });
  app.post(
    '/payments/:recId/delete',
    {
      onRequest: authenticate,
      config: { operation: 'delete-card' },
      schema: { ...deleteSchema, headers: PostHeaders },
    },
    (request, reply) =>
      idempotent<DeletedCard>(
        s,
        request,
        reply,
        (uow) => deleteSavedCard(s, request.merchant.clientId, request.params.recId, uow),
        deleted,
      ),
  );
  app.delete(
    '/payments/:recId',
    { onRequest: authenticate, config: { operation: 'delete-card' }, schema: { ...deleteSchema, headers: Headers } },
    (request, reply) =>
      idempotent<DeletedCard>(
        s,
        request,
        reply,
        (uow) => deleteSavedCard(s, request.merchant.clientId, request.params.recId, uow),
        deleted,
      ),
  );
}
