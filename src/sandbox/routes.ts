// Sandbox tools (SPEC 15), only mounted in sandbox mode. Every endpoint takes the operator token
// (the gateway-wide view) or a merchant's own credentials (that merchant only, on its own clock):
// see auth.ts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError, invalidField } from '../errors/gateway-error.ts';
import { EXAMPLES } from '../api/examples.ts';
import { errorResponses } from '../api/schemas.ts';
import type { Services } from '../services.ts';
import { mayActOn, sandboxAuth, targetClientId } from './auth.ts';
import { conformanceRoutes } from './conformance-route.ts';
import { faultRoutes } from './fault-routes.ts';
import { resetSandbox } from './reset.ts';
import { simulateRoute } from './simulate.ts';
import { testCallbackRoute } from './test-callback.ts';

/** One call may move the clock at most this far (400 days: past every block window and retry). */
export const MAX_ADVANCE_SECONDS = 400 * 86_400;

const clockFields = {
  now: Type.String({
    description: 'Business time: the gateway clock’s, or with merchant credentials the merchant’s own clock’s',
  }),
  offsetSeconds: Type.Number({ description: 'How far that clock is ahead of real time' }),
  clientId: Type.Optional(Type.String({ description: 'With merchant credentials: the merchant whose clock this is' })),
  merchantOffsetSeconds: Type.Optional(
    Type.Number({ description: 'With merchant credentials: the merchant’s own offset, on top of the gateway clock’s' }),
  ),
};
const ClockView = Type.Object(clockFields, { examples: [EXAMPLES.clock, EXAMPLES.merchantClock] });

const ResetView = Type.Object(
  {
    clientId: Type.String(),
    deleted: Type.Object({
      payments: Type.Integer(),
      savedCards: Type.Integer(),
      callbacks: Type.Integer(),
      requests: Type.Integer(),
      faults: Type.Integer(),
    }),
  },
  { examples: [EXAMPLES.reset] },
);

export function sandboxRoutes(scope: FastifyInstance, s: Services): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const auth = sandboxAuth(s);
  const base = { onRequest: auth, config: { operation: 'sandbox' as const } };
  const tags = ['Sandbox'];
  /** The clock this call sees: the merchant's own with merchant credentials, else the gateway's. */
  const view = (request: FastifyRequest) => {
    const id = request.sandboxClientId;
    if (id === null) return { now: s.clock.now().toISOString(), offsetSeconds: Math.trunc(s.clock.offset / 1000) };
    const c = s.clock.forMerchant(id);
    return {
      now: c.now().toISOString(),
      offsetSeconds: Math.trunc(c.totalOffset / 1000),
      clientId: id,
      merchantOffsetSeconds: Math.trunc(c.offset / 1000),
    };
  };

  simulateRoute(app, s, auth);
  testCallbackRoute(app, s, auth);
  faultRoutes(app, s);
  conformanceRoutes(app, s);

  app.get(
    '/clock',
    {
      ...base,
      schema: {
        summary: 'Read the clock',
        description:
          'Admin token: the gateway clock. Merchant credentials (apikey + bearer token): the merchant’s own clock (the gateway clock plus the merchant’s own offset).',
        tags,
        response: { 200: ClockView, ...errorResponses },
      },
    },
    async (request) => {
      await s.sharedClock.refresh();
      return view(request);
    },
  );

  app.post(
    '/clock',
    {
      ...base,
      schema: {
        summary: 'Advance the clock',
        description:
          'Admin token: moves time forward for every merchant and every gateway process. Merchant credentials: moves only that merchant’s own clock (its expiries, block windows, business day, daily limits and callback retries), in every gateway process; other merchants do not move. Due expiries run before the answer (`expired` counts the payments the sweep expired: every merchant’s with the admin token, only that merchant’s own with merchant credentials).',
        tags,
        body: Type.Object({ advanceSeconds: Type.Integer() }, { examples: [EXAMPLES.advanceClockBody] }),
        response: {
          200: Type.Object({ ...clockFields, expired: Type.Integer() }, { examples: [EXAMPLES.advancedClock] }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { advanceSeconds } = request.body;
      if (advanceSeconds < 1 || advanceSeconds > MAX_ADVANCE_SECONDS) {
        const reason = `must be an integer from 1 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward)`;
        throw invalidField('advanceSeconds', reason);
      }
      if (request.sandboxClientId === null) await s.sharedClock.advance(advanceSeconds);
      else await s.sharedClock.advanceMerchant(request.sandboxClientId, advanceSeconds);
      const expired = await s.sweeper.sweep(request.sandboxClientId ?? undefined);
      s.callbacks.nudge(); // retries that just became due
      return { ...view(request), expired };
    },
  );

  app.post(
    '/reset',
    {
      ...base,
      schema: {
        summary: 'Delete a merchant’s sandbox data',
        description:
          'Deletes the merchant’s payments (with their events, operations, saved cards, callbacks and attempts, idempotency keys, daily volumes), its request log, faults and conformance runs. The merchant, its credentials, API keys, settings, dashboard users and its clock stay. Refused (409, nothing deleted) while a payment of the merchant waits for the acquirer (Processing, CancelPaymentProcessing, PaymentCompletionProcessing). Merchant credentials: the merchant itself (`clientId` may be left out; another merchant’s is 404). Admin token: `clientId` is required.',
        tags,
        body: Type.Optional(
          Type.Object({ clientId: Type.Optional(Type.String()) }, { examples: [EXAMPLES.resetBody] }),
        ),
        response: { 200: ResetView, ...errorResponses },
      },
    },
    async (request) => {
      const clientId = targetClientId(request, request.body?.clientId);
      const merchant = clientId.length <= 64 && mayActOn(request, clientId) ? await s.merchants.byId(clientId) : null;
      if (!merchant) throw gatewayError(ERRORS.merchantNotFound, { detail: `No merchant ${clientId}` });
      const deleted = await resetSandbox(s.db, clientId);
      request.log.info({ event: 'sandbox.reset', clientId, ...deleted }, 'sandbox data of a merchant deleted');
      return { clientId, deleted };
    },
  );
}
