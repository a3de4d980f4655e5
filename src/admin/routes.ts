// Operator API (SPEC 13): onboard merchants, set what each may use, issue and rotate credentials.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../api/schemas.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import { merchantView } from '../merchants/merchant.ts';
import {
  addMerchantApiKey,
  changeMerchantSettings,
  findMerchant,
  listMerchants,
  onboardMerchant,
} from '../merchants/onboarding.ts';
import { rotateMerchantClientSecret, rotateMerchantSigningSecret } from '../merchants/rotation.ts';
import type { Services } from '../services.ts';
import { adminAuth } from './auth.ts';
import { createUser } from '../merchants/users.ts';
import {
  ClientIdParams,
  CreateMerchantBody,
  CreateUserBody,
  CreatedUser,
  Credentials,
  MerchantSettingsBody,
  MerchantView,
} from './schemas.ts';

export function adminRoutes(scope: FastifyInstance, s: Services): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const base = {
    onRequest: adminAuth(s.config, s.db),
    config: { operation: 'admin' as const, keepNulls: true },
  };
  const tags = ['Operator'];

  app.post(
    '/merchants',
    {
      ...base,
      schema: {
        summary: 'Create a merchant',
        description: 'Returns the credentials once; only hashes of the client secret and API key are kept.',
        tags,
        body: CreateMerchantBody,
        response: { 201: Type.Object({ merchant: MerchantView, credentials: Credentials }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { merchant, credentials } = await onboardMerchant(s, request.body);
      request.log.info({ clientId: merchant.clientId }, 'merchant created');
      return reply.code(201).send({ merchant: merchantView(merchant), credentials });
    },
  );

  app.get(
    '/merchants',
    {
      ...base,
      schema: {
        summary: 'List merchants',
        tags,
        response: { 200: Type.Object({ merchants: Type.Array(MerchantView) }), ...errorResponses },
      },
    },
    async () => ({ merchants: (await listMerchants(s.db)).map(merchantView) }),
  );

  app.get(
    '/merchants/:clientId',
    {
      ...base,
      schema: {
        summary: 'Get a merchant',
        tags,
        params: ClientIdParams,
        response: { 200: MerchantView, ...errorResponses },
      },
    },
    async (request) => merchantView(await findMerchant(s.db, request.params.clientId)),
  );

  app.patch(
    '/merchants/:clientId',
    {
      ...base,
      schema: {
        summary: 'Update merchant settings',
        description: 'Any subset of the settings; null clears a nullable one.',
        tags,
        params: ClientIdParams,
        body: MerchantSettingsBody,
        response: { 200: MerchantView, ...errorResponses },
      },
    },
    async (request) => merchantView(await changeMerchantSettings(s, request.params.clientId, request.body)),
  );

  /** A credential issued by `make` (which tells the merchant directory), or null for no such merchant. */
  const secretRoute = (
    url: string,
    summary: string,
    field: string,
    make: (clientId: string) => Promise<string | null>,
  ) =>
    app.post(
      url,
      {
        ...base,
        schema: {
          summary,
          tags,
          params: ClientIdParams,
          response: { 200: Type.Object({ [field]: Type.String() }), ...errorResponses },
        },
      },
      async (request) => {
        const clientId = request.params.clientId;
        const value = clientId.length <= 64 ? await make(clientId) : null;
        if (!value) throw gatewayError(ERRORS.merchantNotFound, { detail: `No merchant ${clientId}` });
        request.log.info({ clientId, credential: field }, 'credential issued');
        return { [field]: value };
      },
    );

  secretRoute('/merchants/:clientId/api-keys', 'Add an API key (earlier keys stay active)', 'apiKey', (clientId) =>
    addMerchantApiKey(s, clientId),
  );
  secretRoute(
    '/merchants/:clientId/client-secret',
    'Rotate the client secret (earlier tokens stop working)',
    'clientSecret',
    (clientId) => rotateMerchantClientSecret(s, clientId),
  );
  secretRoute(
    '/merchants/:clientId/callback-secret',
    'Rotate the callback signing secret (the previous one signs too for 24 h)',
    'callbackSecret',
    (clientId) => rotateMerchantSigningSecret(s, clientId),
  );

  app.post(
    '/merchants/:clientId/users',
    {
      ...base,
      schema: {
        summary: 'Create a dashboard user of the merchant',
        description:
          'The user signs in at /dashboard with the email and password. Without a password one is generated and returned once; only its scrypt hash is kept.',
        tags,
        params: ClientIdParams,
        body: CreateUserBody,
        response: { 201: CreatedUser, ...errorResponses },
      },
    },
    async (request, reply) => {
      const merchant = await findMerchant(s.db, request.params.clientId);
      const { user, password } = await createUser(s.db, merchant.clientId, request.body);
      request.log.info({ clientId: merchant.clientId, userId: user.id }, 'dashboard user created');
      return reply.code(201).send({
        user: { clientId: user.clientId, email: user.email, createdAt: user.createdAt.toISOString() },
        password,
      });
    },
  );

  app.post(
    '/signing-keys',
    {
      ...base,
      schema: {
        summary: 'Rotate the token signing key',
        description: 'New tokens use the new key; tokens signed with older keys stay valid until they expire.',
        tags,
        response: { 200: Type.Object({ kid: Type.String() }), ...errorResponses },
      },
    },
    async () => ({ kid: await s.tokens.rotate() }),
  );
}
