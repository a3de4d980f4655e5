// POST /v1/{product}/access-token (SPEC 2).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ERRORS } from '../../errors/catalogue.ts';
import { gatewayError } from '../../errors/gateway-error.ts';
import { secretMatches } from '../../merchants/credentials.ts';
import type { Services } from '../../services.ts';
import type { AuthFailures } from '../auth-failures.ts';
import { assertActive, merchantFromApiKey } from '../auth.ts';
import { AccessTokenBody, AccessTokenResponse, errorResponses } from '../schemas.ts';

export function accessTokenRoute(scope: FastifyInstance, s: Services, failures: AuthFailures, hide: boolean): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/access-token',
    {
      // The schema says what the bank requires; a body without it still gets the bank's answer
      // (access-token.400.001, after the API key is checked), not a generic invalid-fields one.
      attachValidation: true,
      config: { operation: 'access-token', rateLimit: { max: s.config.tokenRequestsPerMinute, timeWindow: 60_000 } },
      schema: {
        hide,
        summary: 'Get an access token',
        description:
          'Header `apikey`; body form-urlencoded or JSON with client_id and client_secret. Tokens last 24 h.',
        tags: ['Authentication'],
        body: AccessTokenBody,
        response: { 200: AccessTokenResponse, ...errorResponses },
      },
    },
    async (request) => {
      const merchant = await merchantFromApiKey(s.merchants, request);
      const { client_id: clientId, client_secret: secret } = request.validationError
        ? { client_id: '', client_secret: '' }
        : request.body;
      if (!clientId || !secret) {
        await failures.failedWithoutCheck(request.ip);
        throw gatewayError(ERRORS.invalidClientCredentials, {
          detail: 'client_id or client_secret is missing or wrong',
        });
      }
      // The API key names the merchant: another client_id is refused before any secret is checked,
      // and counts against the source address only — never against that other merchant.
      if (clientId !== merchant.clientId) {
        await failures.failedWithoutCheck(request.ip);
        if (clientId.length <= 64 && (await s.merchants.byId(clientId))) {
          throw gatewayError(ERRORS.invalidApiKey, {
            detail: 'The API key belongs to another merchant than client_id',
          });
        }
        throw gatewayError(ERRORS.invalidClientCredentials, {
          detail: 'client_id or client_secret is missing or wrong',
        });
      }
      const attempt = await failures.reserve(clientId, request.ip);
      if (!secretMatches(secret, merchant.clientSecretHash)) {
        await failures.failed(attempt);
        throw gatewayError(ERRORS.invalidClientCredentials, {
          detail: 'client_id or client_secret is missing or wrong',
        });
      }
      await failures.succeeded(attempt);
      assertActive(merchant);
      const { token, expiresIn } = await s.tokens.issue(merchant.clientId, merchant.secretVersion);
      return { access_token: token, token_type: 'Bearer' as const, expires_in: expiresIn };
    },
  );
}
