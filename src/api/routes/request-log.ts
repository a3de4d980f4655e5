// GET /v1/gateway/requests: the merchant's latest API requests (Karibche extension).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { KEEP_PER_MERCHANT } from '../../requests/log.ts';
import { listRequests } from '../../requests/list.ts';
import type { Services } from '../../services.ts';
import { merchantAuth } from '../auth.ts';
import { Headers, errorResponses } from '../schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const LoggedRequest = Type.Object({
  time: Type.String(),
  method: Type.String(),
  path: Type.String(),
  status: Type.Integer(),
  systemCode: NullableString,
  latencyMs: Type.Integer(),
  requestId: Type.String(),
  requestBody: Type.Union([Type.String(), Type.Null()], {
    description: 'Redacted: secrets and card data removed; at most 4 KiB',
  }),
  responseBody: NullableString,
});

export function requestLogRoutes(scope: FastifyInstance, s: Services, hide: boolean): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/requests',
    {
      onRequest: merchantAuth(s.merchants, s.tokens),
      config: { operation: 'request-log' as const },
      schema: {
        hide,
        summary: 'Latest API requests (Karibche extension)',
        description: `Newest first; the last ${KEEP_PER_MERCHANT} authenticated requests are kept, written within a second of the answer.`,
        tags: ['Developers'],
        headers: Headers,
        querystring: Type.Object({
          status: Type.Optional(Type.String({ description: '400 or 4xx' })),
          limit: Type.Optional(Type.String()),
          cursor: Type.Optional(Type.String()),
        }),
        response: {
          200: Type.Object({ items: Type.Array(LoggedRequest), nextCursor: NullableString }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const page = await listRequests(s, request.merchant.clientId, request.query);
      return {
        nextCursor: page.nextCursor,
        items: page.items.map((r) => ({
          time: r.created_at.toISOString(),
          method: r.method,
          path: r.path,
          status: r.status,
          systemCode: r.system_code,
          latencyMs: r.latency_ms,
          requestId: r.request_id,
          requestBody: r.request_body,
          responseBody: r.response_body,
        })),
      };
    },
  );
}
