// POST /sandbox/v1/callbacks/conformance {"url"} (merchant credentials): runs the callback
// conformance run (conformance.ts) against one of the merchant's registered callback addresses and
// answers its report; GET …/conformance/{runId} reads a finished run's report again.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../api/schemas.ts';
import { resolveCallbackUrl } from '../callbacks/addresses.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError, invalidField } from '../errors/gateway-error.ts';
import { forRequest, type Services } from '../services.ts';
import { sandboxAuth } from './auth.ts';
import { runConformance } from './conformance.ts';
import { conformanceRun } from './conformance.ts';

export const CONFORMANCE_WAIT = { defaultSeconds: 5, maxSeconds: 30 } as const;

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Report = Type.Object({
  runId: Type.String(),
  url: Type.String(),
  verdict: Type.String({ description: 'pass when every case passes' }),
  cases: Type.Array(
    Type.Object({
      case: Type.String({ description: 'unpaid, duplicate, out-of-order, second-final, unknown' }),
      description: Type.String(),
      paymentId: Type.String(),
      paymentStatus: NullableString,
      callbacks: Type.Array(
        Type.Object({
          callbackId: Type.String(),
          sequence: Type.Integer(),
          eventStatus: NullableString,
          httpStatus: Type.Union([Type.Integer(), Type.Null()]),
          error: NullableString,
          durationMs: Type.Integer(),
        }),
      ),
      fetched: Type.Boolean(),
      fetches: Type.Integer(),
      verdict: Type.String(),
      reason: Type.String(),
    }),
  ),
  startedAt: Type.String(),
  finishedAt: Type.String(),
});

export function conformanceRoutes(scope: FastifyInstance, s: Services): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const base = { onRequest: sandboxAuth(s), config: { operation: 'sandbox' as const, merchantOnly: true } };
  app.post(
    '/callbacks/conformance',
    {
      ...base,
      schema: {
        summary: 'Run the callback conformance run against your endpoint',
        description: `Merchant credentials. Sends \`url\` (under a registered callback address) five cases: a callback for an unpaid payment, a duplicate, two statuses out of order, a second final status (returned after success), an unknown PaymentId; each is judged by the endpoint's answers and by whether the merchant then fetched the payment with get-payment (within \`waitSeconds\`, default ${CONFORMANCE_WAIT.defaultSeconds}, at most ${CONFORMANCE_WAIT.maxSeconds}, after the callback). The payments are real sandbox payments of the merchant (merchantPaymentId \`conformance-…\`).`,
        tags: ['Sandbox'],
        body: Type.Object({ url: Type.String(), waitSeconds: Type.Optional(Type.Integer()) }),
        response: { 200: Report, ...errorResponses },
      },
    },
    async (request) => {
      const { url, waitSeconds = CONFORMANCE_WAIT.defaultSeconds } = request.body;
      const merchant = request.merchant;
      const verdict = resolveCallbackUrl(url, merchant.callbackUrlPrefixes);
      if (!verdict.ok)
        throw invalidField('url', verdict.reason, verdict.unregistered ? ERRORS.callbackUrlNotRegistered : undefined);
      if (waitSeconds < 1 || waitSeconds > CONFORMANCE_WAIT.maxSeconds)
        throw invalidField('waitSeconds', `must be an integer from 1 to ${CONFORMANCE_WAIT.maxSeconds}`);
      return runConformance(forRequest(s, request), merchant, url, waitSeconds * 1000);
    },
  );

  app.get(
    '/callbacks/conformance/:runId',
    {
      ...base,
      schema: {
        summary: 'A conformance run’s report',
        tags: ['Sandbox'],
        params: Type.Object({ runId: Type.String() }),
        response: { 200: Report, ...errorResponses },
      },
    },
    async (request) => {
      const run = await conformanceRun(s.db, request.merchant.clientId, request.params.runId);
      if (!run?.report) throw gatewayError(ERRORS.conformanceRunNotFound);
      return run.report as never;
    },
  );
}
