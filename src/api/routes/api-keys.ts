// Merchant self-service API keys (Karibche extension): list, create (the key is shown once), revoke.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { createApiKey, deleteApiKey, listApiKeys, type CreatedApiKey } from '../../merchants/api-keys.ts';
import type { Services } from '../../services.ts';
import { merchantAuth } from '../auth.ts';
import { idempotent } from '../idempotency.ts';
import { Headers, PostHeaders, errorResponses } from '../schemas.ts';

const ApiKey = Type.Object({
  id: Type.String({ description: 'Public id, used to revoke' }),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  createdAt: Type.String(),
});
const CreatedKey = Type.Object({
  ...ApiKey.properties,
  apiKey: Type.Optional(
    Type.String({
      description:
        'The key itself: shown only in this response (a replay under the same Idempotency-Key names the key but cannot show it: it is stored only as a digest)',
    }),
  ),
});
const KeyParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export function apiKeyRoutes(scope: FastifyInstance, s: Services, hide: boolean): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const authenticate = merchantAuth(s.merchants, s.tokens);
  const base = { onRequest: authenticate, config: { operation: 'api-keys' as const } };
  const tags = ['API keys'];

  app.get(
    '/api-keys',
    {
      ...base,
      schema: {
        hide,
        summary: 'List active API keys (Karibche extension)',
        tags,
        headers: Headers,
        response: { 200: Type.Object({ items: Type.Array(ApiKey) }), ...errorResponses },
      },
    },
    async (request) => ({
      items: await listApiKeys(s, request.merchant.clientId),
    }),
  );

  app.post(
    '/api-keys',
    {
      ...base,
      schema: {
        hide,
        summary: 'Create an API key (Karibche extension)',
        description: 'The key is in this response only; store it now. Earlier keys stay active.',
        tags,
        headers: PostHeaders,
        response: { 201: CreatedKey, ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent<CreatedApiKey>(
        s,
        request,
        reply,
        async (uow) => {
          const key = await createApiKey(s, request.merchant.clientId, uow);
          request.log.info({ clientId: request.merchant.clientId, keyId: key.id }, 'api key created');
          return key;
        },
        (key) => ({ status: 201, body: key }),
      ),
  );

  app.delete(
    '/api-keys/:id',
    {
      ...base,
      schema: {
        hide,
        summary: 'Revoke an API key (Karibche extension)',
        description: 'Takes effect at once in every gateway process. The last active key cannot be revoked.',
        tags,
        headers: Headers,
        params: KeyParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    (request, reply) =>
      idempotent<{ revoked: string }>(
        s,
        request,
        reply,
        async (uow) => {
          await deleteApiKey(s, request.merchant.clientId, request.params.id, uow);
          request.log.info({ clientId: request.merchant.clientId, keyId: request.params.id }, 'api key revoked');
          return { revoked: request.params.id };
        },
        () => ({ status: 204, body: null }),
      ),
  );
}
