// What the OpenAPI document says beyond the route schemas: which credentials each operation needs
// (from the operation it belongs to: merchant calls take apikey + bearer token, the token endpoint
// the API key, operator and sandbox calls the admin token) and the operation name whose errors
// the catalogue lists (`x-karibche-operation`, linked from the API reference).
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { MERCHANT_OPERATIONS, type Operation } from '../errors/catalogue.ts';

export const SECURITY_SCHEMES = {
  apikey: { type: 'apiKey', in: 'header', name: 'apikey', description: 'The merchant’s API key' },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An access token from POST /v1/gateway/access-token',
  },
  admin: {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator’s admin token (KARIBCHE_ADMIN_TOKEN; data/admin-token in the sandbox)',
  },
} as const;

export type Credential = keyof typeof SECURITY_SCHEMES;

export function credentialsFor(operation: string | undefined, merchantOnly = false): Credential[] {
  if (operation === 'access-token') return ['apikey'];
  // The sandbox's merchant-only endpoints (faults, the conformance run) refuse the admin token.
  if (operation === 'sandbox' && merchantOnly) return ['apikey', 'bearer'];
  if (operation === 'admin' || operation === 'sandbox') return ['admin'];
  if (operation && MERCHANT_OPERATIONS.includes(operation as Operation)) return ['apikey', 'bearer'];
  return [];
}

/** @fastify/swagger's `transform`: adds `security` and `x-karibche-operation` to each route's schema. */
export const describeRoute: SwaggerTransform<FastifySchema> = ({ schema, url, route }) => {
  const config = route.config as { operation?: string; merchantOnly?: boolean } | undefined;
  const operation = config?.operation;
  if (!schema || !operation) return { schema, url };
  const credentials = credentialsFor(operation, config?.merchantOnly);
  return {
    url,
    schema: {
      ...schema,
      ...(credentials.length ? { security: [Object.fromEntries(credentials.map((c) => [c, []]))] } : {}),
      'x-karibche-operation': operation,
    } as FastifySchema,
  };
};
