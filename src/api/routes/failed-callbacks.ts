// The merchant's failed and undeliverable callbacks across payments, and bulk redelivery
// (Karibche extensions; the per-payment endpoints are in callbacks.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { callbackId } from '../../callbacks/ids.ts';
import {
  MAX_BULK,
  listFailedDeliveries,
  redeliverFailedDeliveries,
  type BulkRedelivery,
} from '../../callbacks/failed-deliveries.ts';
import type { Services } from '../../services.ts';
import { merchantAuth } from '../auth.ts';
import { EXAMPLES } from '../examples.ts';
import { idempotent } from '../idempotency.ts';
import { Headers, PostHeaders, errorResponses } from '../schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const ProblemCallback = Type.Object({
  callbackId: Type.String(),
  payId: Type.String(),
  sequence: Type.Integer(),
  paymentStatus: Type.String(),
  url: NullableString,
  status: Type.String({ description: 'failed or undeliverable' }),
  attempts: Type.Integer(),
  lastHttpStatus: Type.Union([Type.Integer(), Type.Null()]),
  lastError: NullableString,
  createdAt: Type.String(),
});
const ProblemQuery = Type.Object({
  state: Type.Optional(Type.String({ description: 'failed or undeliverable (default both)' })),
  limit: Type.Optional(Type.String({ description: '1–100, default 20' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
});
const BulkBody = Type.Object(
  {
    callbackIds: Type.Optional(
      Type.Array(Type.String({ maxLength: 40 }), {
        maxItems: MAX_BULK,
        description: 'Callback ids (evt_…) to redeliver',
      }),
    ),
    state: Type.Optional(Type.String({ description: 'Or every callback in this state: failed or undeliverable' })),
  },
  { additionalProperties: false, examples: [EXAMPLES.redeliverBody] },
);
const BulkResponse = Type.Object({
  items: Type.Array(Type.Object({ callbackId: Type.String(), status: Type.String() })),
  skipped: Type.Array(Type.String(), {
    description: 'Ids that are not failed or undeliverable callbacks of this merchant; left unchanged',
  }),
});

export function failedCallbackRoutes(scope: FastifyInstance, s: Services, hide: boolean): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const authenticate = merchantAuth(s.merchants, s.tokens);

  app.get(
    '/callbacks',
    {
      onRequest: authenticate,
      config: { operation: 'callbacks' },
      schema: {
        hide,
        summary: 'Failed and undeliverable callbacks (Karibche extension)',
        description: 'Newest first, across payments.',
        tags: ['Callbacks'],
        headers: Headers,
        querystring: ProblemQuery,
        response: {
          200: Type.Object({ items: Type.Array(ProblemCallback), nextCursor: NullableString }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const page = await listFailedDeliveries(s, request.merchant.clientId, request.query);
      return {
        nextCursor: page.nextCursor,
        items: page.items.map((d) => ({
          callbackId: callbackId(d.event_id),
          payId: d.pay_id,
          sequence: d.seq,
          paymentStatus: d.event_status,
          url: d.url,
          status: d.status,
          attempts: d.attempts,
          lastHttpStatus: d.last_status,
          lastError: d.last_error,
          createdAt: d.created_at.toISOString(),
        })),
      };
    },
  );

  app.post(
    '/callbacks/redeliver',
    {
      onRequest: authenticate,
      config: { operation: 'callbacks' },
      schema: {
        hide,
        summary: 'Redeliver callbacks in bulk (Karibche extension)',
        description: `By \`callbackIds\` or every one in \`state\` (at most ${MAX_BULK} per call; call again for more). Each is due now with a fresh 3-day window, to its URL resolved again.`,
        tags: ['Callbacks'],
        headers: PostHeaders,
        body: BulkBody,
        response: { 202: BulkResponse, ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent<BulkRedelivery>(
        s,
        request,
        reply,
        async (uow) => {
          const r = await redeliverFailedDeliveries(s, request.merchant, request.body, uow);
          s.callbacks.nudge();
          return r;
        },
        (r) => ({ status: 202, body: r }),
      ),
  );
}
