// The merchant's view of its callbacks: every event with its attempts, and redelivery (SPEC 10).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { callbackId } from '../../callbacks/ids.ts';
import { redeliverLatest, type Redelivery } from '../../callbacks/redelivery.ts';
import { paymentCallbacks } from '../../callbacks/payment-callbacks.ts';
import type { Services } from '../../services.ts';
import { merchantAuth } from '../auth.ts';
import { idempotent } from '../idempotency.ts';
import { Headers, PayIdParams, PostHeaders, errorResponses } from '../schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Attempt = Type.Object({
  attempt: Type.Integer(),
  startedAt: Type.String(),
  durationMs: Type.Integer(),
  httpStatus: Type.Union([Type.Integer(), Type.Null()]),
  error: NullableString,
  response: NullableString,
});
const Callback = Type.Object({
  callbackId: Type.String(),
  sequence: Type.Integer(),
  paymentStatus: Type.String(),
  url: NullableString,
  status: Type.String({ description: 'pending, delivering, delivered, failed or undeliverable' }),
  attempts: Type.Integer(),
  nextAttemptAt: NullableString,
  deliveredAt: NullableString,
  createdAt: Type.String(),
  attemptLog: Type.Array(Attempt),
});

export function callbackRoutes(scope: FastifyInstance, s: Services, hide: boolean): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const authenticate = merchantAuth(s.merchants, s.tokens);
  app.get(
    '/payments/:payId/callbacks',
    {
      onRequest: authenticate,
      config: { operation: 'callbacks' },
      schema: {
        hide,
        summary: 'List a payment’s callbacks and every delivery attempt',
        tags: ['Callbacks'],
        headers: Headers,
        params: PayIdParams,
        response: { 200: Type.Object({ payId: Type.String(), callbacks: Type.Array(Callback) }), ...errorResponses },
      },
    },
    async (request) => {
      const { payId } = request.params;
      const { deliveries, attempts } = await paymentCallbacks(s.db, request.merchant.clientId, payId);
      return {
        payId,
        callbacks: deliveries.map((d) => ({
          callbackId: callbackId(d.event_id),
          sequence: d.seq,
          paymentStatus: d.event_status,
          url: d.url,
          status: d.status,
          attempts: d.attempts,
          nextAttemptAt: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
          deliveredAt: d.delivered_at?.toISOString() ?? null,
          createdAt: d.created_at.toISOString(),
          attemptLog: attempts
            .filter((a) => a.event_id === d.event_id)
            .map((a) => ({
              attempt: a.attempt,
              startedAt: a.started_at.toISOString(),
              durationMs: a.duration_ms,
              httpStatus: a.http_status,
              error: a.error,
              response: a.response_excerpt,
            })),
        })),
      };
    },
  );

  app.post(
    '/payments/:payId/callbacks/redeliver',
    {
      onRequest: authenticate,
      config: { operation: 'callbacks' },
      schema: {
        hide,
        summary: 'Send the latest callback again',
        description:
          'The payment’s latest final-status callback is due again now, with a fresh 3-day retry window and its URL resolved again.',
        tags: ['Callbacks'],
        headers: PostHeaders,
        params: PayIdParams,
        response: { 202: Type.Object({ callbackId: Type.String(), status: Type.String() }), ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent<Redelivery>(
        s,
        request,
        reply,
        async (uow) => {
          const r = await redeliverLatest(s, request.merchant, request.params.payId, uow);
          s.callbacks.nudge();
          return r;
        },
        (r) => ({ status: 202, body: r }),
      ),
  );
}
