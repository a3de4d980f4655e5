// Authentication of merchant calls (SPEC 2): the API key names the merchant, the bearer token
// proves the client credentials, and both must belong to the same merchant.
import type { FastifyRequest } from 'fastify';
import type { Merchant } from '../merchants/merchant.ts';
import type { MerchantDirectory } from '../merchants/directory.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { TokenService } from './tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    merchant: Merchant;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The merchant named by the `apikey` header; 401 when the key is missing or unknown. */
export async function merchantFromApiKey(directory: MerchantDirectory, request: FastifyRequest): Promise<Merchant> {
  const key = request.headers.apikey;
  const merchant =
    typeof key === 'string' && key.length > 0 && key.length <= 200 ? await directory.byApiKey(key) : null;
  if (!merchant)
    throw gatewayError(ERRORS.invalidApiKey, { detail: 'The apikey header is missing or not a valid API key' });
  return merchant;
}

export function assertActive(merchant: Merchant): void {
  if (merchant.status !== 'active') throw gatewayError(ERRORS.merchantSuspended);
}

export function merchantAuth(directory: MerchantDirectory, tokens: TokenService) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const merchant = await merchantFromApiKey(directory, request);
    const m = BEARER.exec(request.headers.authorization ?? '');
    const claims = m ? await tokens.verify(m[1]!) : null;
    if (!claims)
      throw gatewayError(ERRORS.invalidToken, {
        detail: 'The bearer token is missing, malformed, expired or not issued by this gateway',
      });
    if (claims.clientId !== merchant.clientId) {
      throw gatewayError(ERRORS.invalidApiKey, {
        detail: 'The API key and the access token belong to different merchants',
      });
    }
    if (claims.secretVersion !== merchant.secretVersion) {
      throw gatewayError(ERRORS.invalidToken, {
        detail: 'The token was issued before the client secret was rotated; request a new one',
      });
    }
    assertActive(merchant);
    request.merchant = merchant;
  };
}
