// Everything a merchant does with a payment after it is paid: cancel (refund / void), completion,
// saved-card execution and delete (SPEC 7–9).
import type { FastifyInstance } from 'fastify';
import { executeSavedCard, resumeExecution, type ExecuteInput } from '../../payments/execute.ts';
import { parseAmount } from '../../payments/money.ts';
import { cancelPayment, completePayment } from '../../payments/operations.ts';
import { deleteSavedCard } from '../../payments/saved-cards.ts';
import type { Services } from '../../services.ts';
import { merchantAuth } from '../auth.ts';
import { ERRORS } from '../errors.ts';
import { idempotent } from '../idempotency.ts';
import { problem } from '../problem.ts';
import {
  CancelBody, CancelResponse, CompletionBody, CompletionResponse, DeletedResponse, ExecutionBody, Headers, PayIdParams,
  PaymentResponse, PostHeaders, RecIdParams, errorResponses,
} from '../schemas.ts';

/** An amount field in minor units, or a 400 naming the field. */
function amountOf(field: string, value: unknown): number {
  const p = parseAmount(value);
  if (!p.ok) throw problem(ERRORS.invalidRequest, { detail: `${field} ${p.reason}`, invalidParams: [{ name: field, reason: p.reason }] });
  return p.minor;
}

export function operationRoutes(app: FastifyInstance, s: Services, productPath: string, hide: boolean): void {
  const authenticate = merchantAuth(s.merchants, s.tokens);
  const tags = ['Payments'];

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
      idempotent(s.db, s.clock, request, reply, (scope) => {
        const body = request.body as { amount?: unknown; extra?: string; extra2?: unknown };
        return cancelPayment(
          s,
          request.merchant.clientId,
          (request.params as { payId: string }).payId,
          {
            amount: body.amount === undefined ? null : amountOf('amount', body.amount),
            splitIban: body.extra ?? null,
            splitAmount: body.extra2 === undefined ? null : amountOf('extra2', body.extra2),
          },
          scope,
        );
      }),
  );

  app.post(
    '/payments/:payId/completion',
    {
      onRequest: authenticate,
      config: { operation: 'complete-payment' },
      schema: {
        hide,
        summary: 'Complete a pre-authorised payment',
        description: 'From WaitingConfirm, within the block window: captures `amount` (≤ authorised, ≥ split amount); the rest of the block is released.',
        tags,
        headers: PostHeaders,
        params: PayIdParams,
        body: CompletionBody,
        response: { 200: CompletionResponse, ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent(s.db, s.clock, request, reply, (scope) =>
        completePayment(s, request.merchant.clientId, (request.params as { payId: string }).payId, amountOf('amount', (request.body as { amount: unknown }).amount), scope),
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
        description: 'Synchronous: answers the payment (paymentMethod 11) as Succeeded, WaitingConfirm (preAuth) or Failed. Split cards reuse the IBAN and amount stored with the card.',
        tags,
        headers: PostHeaders,
        body: ExecutionBody,
        response: { 200: PaymentResponse, ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent(
        s.db,
        s.clock,
        request,
        reply,
        (scope) => executeSavedCard(s, request.merchant, request.body as ExecuteInput, productPath, scope),
        (payId) => resumeExecution(s, request.merchant.clientId, payId, productPath),
      ),
  );

  const deleteCard = async (clientId: string, recId: string) => {
    const ok = /^[0-9a-f]{32}$/.test(recId) && (await deleteSavedCard(s.db, clientId, recId, s.clock.now()));
    if (!ok) throw problem(ERRORS.cardNotFound);
    return { status: 200, body: { httpStatusCode: 200, developerMessage: null, userMessage: null } };
  };
  const deleteSchema = { hide, summary: 'Delete a saved card', description: 'Deleting again is also 200; a deleted card cannot be charged.', tags, params: RecIdParams, response: { 200: DeletedResponse, ...errorResponses } };

  app.post('/payments/:recId/delete', { onRequest: authenticate, config: { operation: 'delete-card' }, schema: { ...deleteSchema, headers: PostHeaders } }, (request, reply) =>
    idempotent(s.db, s.clock, request, reply, () => deleteCard(request.merchant.clientId, (request.params as { recId: string }).recId)),
  );
  app.delete('/payments/:recId', { onRequest: authenticate, config: { operation: 'delete-card' }, schema: { ...deleteSchema, headers: Headers } }, async (request, reply) => {
    const r = await deleteCard(request.merchant.clientId, (request.params as { recId: string }).recId);
    return reply.code(r.status).send(r.body);
  });
}
