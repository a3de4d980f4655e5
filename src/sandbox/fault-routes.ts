// POST/GET/DELETE /sandbox/v1/faults (merchant credentials): the merchant's next n operations of a
// kind fail the way it asks — for flows where there is no test card to choose (saved-card charges,
// refunds of payments made with an ordinary card, wallets, QR).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { EXAMPLES } from '../api/examples.ts';
import { errorResponses } from '../api/schemas.ts';
import type { Services } from '../services.ts';
import { sandboxAuth } from './auth.ts';
import {
  FAULT_OPERATIONS,
  FAULT_OUTCOMES,
  MAX_FAULT_TIMES,
  dropWaitingFaults,
  setFault,
  waitingFaults,
} from './faults.ts';

const FaultView = Type.Object({
  id: Type.Integer(),
  operation: Type.String(),
  outcome: Type.String(),
  times: Type.Integer(),
  remaining: Type.Integer(),
  createdAt: Type.String(),
});

export function faultRoutes(scope: FastifyInstance, s: Services): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const base = { onRequest: sandboxAuth(s), config: { operation: 'sandbox' as const, merchantOnly: true } };
  const tags = ['Sandbox'];

  app.post(
    '/faults',
    {
      ...base,
      schema: {
        summary: 'Make the merchant’s next operations fail',
        description:
          'Merchant credentials (apikey + bearer token). The merchant’s next `times` (default 1) operations of the kind fail: `decline` (declined, resultCode decline_general), `lost` (the acquirer performs it and the answer is lost: the payment stays processing and the reconciler finishes it), `error` (the acquirer fails and performs nothing: an attempt is declined with check_with_acquirer, a capture, void or refund is answered 502 and may be retried). `authorise` is a customer’s attempt at the checkout; `execution` a saved-card charge.',
        tags,
        body: Type.Object(
          {
            operation: Type.String({ description: FAULT_OPERATIONS.join(', ') }),
            outcome: Type.String({ description: FAULT_OUTCOMES.join(', ') }),
            times: Type.Optional(Type.Integer({ description: `1–${MAX_FAULT_TIMES}, default 1` })),
          },
          { examples: [EXAMPLES.faultBody] },
        ),
        response: { 201: FaultView, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { operation, outcome, times = 1 } = request.body;
      const fault = await setFault(s, request.merchant.clientId, { operation, outcome, times });
      request.log.info({ clientId: request.merchant.clientId, fault }, 'sandbox fault set');
      return reply.code(201).send(fault);
    },
  );

  app.get(
    '/faults',
    {
      ...base,
      schema: {
        summary: 'The merchant’s faults still waiting',
        tags,
        response: { 200: Type.Object({ faults: Type.Array(FaultView) }), ...errorResponses },
      },
    },
    async (request) => ({ faults: await waitingFaults(s.db, request.merchant.clientId) }),
  );

  app.delete(
    '/faults',
    {
      ...base,
      schema: {
        summary: 'Drop the merchant’s waiting faults',
        tags,
        response: { 200: Type.Object({ cleared: Type.Integer() }), ...errorResponses },
      },
    },
    async (request) => ({ cleared: await dropWaitingFaults(s.db, request.merchant.clientId) }),
  );
}
