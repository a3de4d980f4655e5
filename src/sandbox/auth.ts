// Who a sandbox call acts for (issue 15): every /sandbox/v1 endpoint takes either the operator's
// admin token (`Authorization: Bearer <admin token>`, the gateway-wide view: the global clock, any
// merchant's payment) or a merchant's own credentials (`apikey` + `Authorization: Bearer <access
// token>`, verified exactly as on the merchant API), and then acts on that merchant only — its own
// clock, its own payments; another merchant's payment is as unknown as one that does not exist.
// A request with an `apikey` header is a merchant's; without one, the operator's. Endpoints that
// only make sense for one merchant (faults, the conformance run) take merchant credentials alone.
import type { FastifyRequest } from 'fastify';
import { adminAuth } from '../admin/auth.ts';
import { merchantAuth } from '../api/auth.ts';
import { invalidField } from '../errors/gateway-error.ts';
import type { Services } from '../services.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The merchant a sandbox call is confined to; null for the operator (admin token). */
    sandboxClientId: string | null;
  }
}

/** The route's `config.merchantOnly` (also what its OpenAPI `security` says) makes it a merchant's call only. */
export function sandboxAuth(s: Services) {
  const admin = adminAuth(s.config, s.db);
  const merchant = merchantAuth(s.merchants, s.tokens);
  return async function authenticateSandbox(request: FastifyRequest): Promise<void> {
    if (request.routeOptions.config.merchantOnly || request.headers.apikey !== undefined) {
      await merchant(request);
      request.sandboxClientId = request.merchant.clientId;
    } else {
      await admin(request);
      request.sandboxClientId = null;
    }
  };
}

/** Whether a sandbox call may act on something of `clientId`'s. */
export const mayActOn = (request: FastifyRequest, clientId: string): boolean =>
  request.sandboxClientId === null || request.sandboxClientId === clientId;

/**
 * The merchant a sandbox call names in its body: with merchant credentials the merchant itself
 * when left out (a different one is then refused by mayActOn, as unknown); the operator must name one.
 */
export function targetClientId(request: FastifyRequest, clientId: string | undefined): string {
  if (clientId !== undefined) return clientId;
  if (request.sandboxClientId !== null) return request.sandboxClientId;
  throw invalidField('clientId', 'is required with the admin token (merchant credentials act on their own merchant)');
}
