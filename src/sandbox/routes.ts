// Sandbox tools (SPEC 15), only mounted in sandbox mode and only for the operator token.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ERRORS } from '../errors/catalogue.ts';
import { invalidField } from '../errors/gateway-error.ts';
import { errorResponses } from '../api/schemas.ts';
import { adminAuth } from '../admin/auth.ts';
import type { Services } from '../services.ts';
import { simulateRoute } from './simulate.ts';
import { testCallbackRoute } from './test-callback.ts';

/** One call may move the clock at most this far (400 days: past every block window and retry). */
export const MAX_ADVANCE_SECONDS = 400 * 86_400;

const ClockView = Type.Object({ now: Type.String(), offsetSeconds: Type.Number() });

export function sandboxRoutes(scope: FastifyInstance, s: Services): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const base = { onRequest: adminAuth(s.config, s.db), config: { operation: 'sandbox' as const } };
  const tags = ['Sandbox'];
  const view = () => ({ now: s.clock.now().toISOString(), offsetSeconds: Math.trunc(s.clock.offset / 1000) });

  simulateRoute(app, s);
  testCallbackRoute(app, s);

  app.get('/clock', { ...base, schema: { summary: 'Read the gateway clock', tags, response: { 200: ClockView, ...errorResponses } } }, async () => {
    await s.sharedClock.refresh();
    return view();
  });

  app.post(
    '/clock',
    {
      ...base,
      schema: {
        summary: 'Advance the gateway clock',
        description: 'Moves time forward for every gateway process; due expiries run before the answer.',
        tags,
        body: Type.Object({ advanceSeconds: Type.Integer() }),
        response: { 200: Type.Object({ now: Type.String(), offsetSeconds: Type.Number(), expired: Type.Integer() }), ...errorResponses },
      },
    },
    async (request) => {
      const { advanceSeconds } = request.body;
      if (advanceSeconds < 1 || advanceSeconds > MAX_ADVANCE_SECONDS) {
        const reason = `must be an integer from 1 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward)`;
        throw invalidField('advanceSeconds', reason);
      }
      await s.sharedClock.advance(advanceSeconds);
      const expired = await s.sweeper.sweep();
      s.callbacks.nudge(); // retries that just became due
      return { ...view(), expired };
    },
  );
}
