// Operator API (SPEC 13): onboard merchants, set what each may use, issue and rotate credentials.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../api/schemas.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError, invalidFields } from '../errors/gateway-error.ts';
import { newApiKey } from '../merchants/credentials.ts';
import { DEFAULT_SETTINGS, merchantView, type Merchant, type MerchantSettings } from '../merchants/merchant.ts';
import { checkSettings, type SettingsInput } from '../merchants/settings.ts';
import { rotateSigningSecret } from '../merchants/rotation.ts';
import { insertApiKey, insertMerchant, rotateClientSecret, selectMerchant, selectMerchants, updateMerchantSettings } from '../merchants/store.ts';
import type { Services } from '../services.ts';
import { adminAuth } from './auth.ts';
import { createUser } from '../merchants/users.ts';
import { ClientIdParams, CreateMerchantBody, CreateUserBody, CreatedUser, Credentials, MerchantSettingsBody, MerchantView } from './schemas.ts';

export function adminRoutes(scope: FastifyInstance, s: Services): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const base = {
    onRequest: adminAuth(s.config, s.db),
    config: { operation: 'admin' as const, keepNulls: true },
  };
  const tags = ['Operator'];

  async function merchantOr404(clientId: string): Promise<Merchant> {
    const m = clientId.length <= 64 ? await selectMerchant(s.db, clientId) : null;
    if (!m) throw gatewayError(ERRORS.merchantNotFound, { detail: `No merchant ${clientId}` });
    return m;
  }

  function checked(input: SettingsInput, current: Pick<MerchantSettings, 'defaultCallbackUrl' | 'callbackUrlPrefixes'>) {
    const result = checkSettings(input, current);
    if (!result.ok) throw invalidFields(result.errors);
    return result.settings;
  }

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
      const settings = checked(request.body, DEFAULT_SETTINGS);
      const { merchant, credentials } = await s.db.tx((q) => insertMerchant(q, { ...settings, name: settings.name! }, s.clock.now()));
      request.log.info({ clientId: merchant.clientId }, 'merchant created');
      return reply.code(201).send({ merchant: merchantView(merchant), credentials });
    },
  );

  app.get(
    '/merchants',
    { ...base, schema: { summary: 'List merchants', tags, response: { 200: Type.Object({ merchants: Type.Array(MerchantView) }), ...errorResponses } } },
    async () => ({ merchants: (await selectMerchants(s.db, 1000)).map(merchantView) }),
  );

  app.get(
    '/merchants/:clientId',
    { ...base, schema: { summary: 'Get a merchant', tags, params: ClientIdParams, response: { 200: MerchantView, ...errorResponses } } },
    async (request) => merchantView(await merchantOr404(request.params.clientId)),
  );

  app.patch(
    '/merchants/:clientId',
    {
      ...base,
      schema: { summary: 'Update merchant settings', description: 'Any subset of the settings; null clears a nullable one.', tags, params: ClientIdParams, body: MerchantSettingsBody, response: { 200: MerchantView, ...errorResponses } },
    },
    async (request) => {
      const clientId = request.params.clientId;
      const patch = checked(request.body, await merchantOr404(clientId));
      if (Object.keys(patch).length === 0) return merchantView(await merchantOr404(clientId));
      const updated = await updateMerchantSettings(s.db, clientId, patch, s.clock.now());
      if (!updated) throw gatewayError(ERRORS.merchantNotFound, { detail: `No merchant ${clientId}` });
      await s.merchants.changed(clientId);
      return merchantView(updated);
    },
  );

  const secretRoute = (url: string, summary: string, field: string, make: (clientId: string) => Promise<string | null>) =>
    app.post(
      url,
      { ...base, schema: { summary, tags, params: ClientIdParams, response: { 200: Type.Object({ [field]: Type.String() }), ...errorResponses } } },
      async (request) => {
        const clientId = request.params.clientId;
        const value = clientId.length <= 64 ? await make(clientId) : null;
        if (!value) throw gatewayError(ERRORS.merchantNotFound, { detail: `No merchant ${clientId}` });
        await s.merchants.changed(clientId);
        request.log.info({ clientId, credential: field }, 'credential issued');
        return { [field]: value };
      },
    );

  secretRoute('/merchants/:clientId/api-keys', 'Add an API key (earlier keys stay active)', 'apiKey', async (clientId) => {
    if (!(await selectMerchant(s.db, clientId))) return null;
    const key = newApiKey();
    await insertApiKey(s.db, clientId, key, s.clock.now());
    return key;
  });
  secretRoute('/merchants/:clientId/client-secret', 'Rotate the client secret (earlier tokens stop working)', 'clientSecret', (clientId) =>
    rotateClientSecret(s.db, clientId, s.clock.now()),
  );
  secretRoute('/merchants/:clientId/callback-secret', 'Rotate the callback signing secret (the previous one signs too for 24 h)', 'callbackSecret', (clientId) =>
    rotateSigningSecret(s.db, clientId, s.clock.now()),
  );

  app.post(
    '/merchants/:clientId/users',
    {
      ...base,
      schema: {
        summary: 'Create a dashboard user of the merchant',
        description: 'The user signs in at /dashboard with the email and password. Without a password one is generated and returned once; only its scrypt hash is kept.',
        tags,
        params: ClientIdParams,
        body: CreateUserBody,
        response: { 201: CreatedUser, ...errorResponses },
      },
    },
    async (request, reply) => {
      const merchant = await merchantOr404(request.params.clientId);
      const { user, password } = await createUser(s.db, merchant.clientId, request.body);
      request.log.info({ clientId: merchant.clientId, userId: user.id }, 'dashboard user created');
      return reply.code(201).send({ user: { clientId: user.clientId, email: user.email, createdAt: user.createdAt.toISOString() }, password });
    },
  );

  app.post(
    '/signing-keys',
    { ...base, schema: { summary: 'Rotate the token signing key', description: 'New tokens use the new key; tokens signed with older keys stay valid until they expire.', tags, response: { 200: Type.Object({ kid: Type.String() }), ...errorResponses } } },
    async () => ({ kid: await s.tokens.rotate() }),
  );
}
