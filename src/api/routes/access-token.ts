// POST /v1/{product}/access-token (SPEC 2).
import type { FastifyInstance } from 'fastify';
import { secretMatches } from '../../merchants/credentials.ts';
import type { Services } from '../../services.ts';
import type { AuthFailures } from '../auth-failures.ts';
import { assertActive, merchantFromApiKey } from '../auth.ts';
import { ERRORS } from '../errors.ts';
import { problem } from '../problem.ts';
import { AccessTokenBody, AccessTokenResponse, errorResponses } from '../schemas.ts';

export function accessTokenRoute(app: FastifyInstance, s: Services, failures: AuthFailures, hide: boolean): void {
  app.post(
    '/access-token',
    {
      config: { operation: 'access-token', rateLimit: { max: s.config.tokenRequestsPerMinute, timeWindow: 60_000 } },
      schema: {
        hide,
        summary: 'Get an access token',
        description: 'Header `apikey`; body form-urlencoded or JSON with client_id and client_secret. Tokens last 24 h.',
        tags: ['Authentication'],
        body: AccessTokenBody,
        response: { 200: AccessTokenResponse, ...errorResponses },
      },
    },
    async (request) => {
      const merchant = await merchantFromApiKey(s.merchants, request);
      const { client_id: clientId, client_secret: secret } = request.body as { client_id?: string; client_secret?: string };
      await failures.check(clientId, request.ip);
      const target = clientId && secret ? await s.merchants.byId(clientId) : null;
      if (!target || !secretMatches(secret!, target.clientSecretHash)) {
        await failures.record(clientId, request.ip);
        throw problem(ERRORS.invalidClientCredentials, { detail: 'client_id or client_secret is missing or wrong' });
      }
      if (target.clientId !== merchant.clientId) {
        throw problem(ERRORS.invalidApiKey, { detail: 'The API key belongs to another merchant than client_id' });
      }
      assertActive(target);
      const { token, expiresIn } = await s.tokens.issue(target.clientId, target.secretVersion);
      return { access_token: token, token_type: 'Bearer' as const, expires_in: expiresIn };
    },
  );
}
