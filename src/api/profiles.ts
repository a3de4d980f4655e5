// Per merchant, how the merchant API answers (docs/bank-profile.md): Karibche's default profile, or
// the bank profile (bank-presenter.ts). This module is the one place that decides it for a request
// and applies it:
// - which merchant a request belongs to, even one refused before authentication ended (its API
//   key, its token, or the client_id of a token request), so that refusals are shaped too;
// - bank profile: Karibche's own endpoints are not found, the token request takes form data only,
//   the Idempotency-Key is ignored as the bank ignores it, answers are reshaped, and Karibche's
//   headers (X-Request-Id, Idempotent-Replayed, Karibche-*) are dropped;
// - default profile: every answer to a request that relied on something the bank does not have
//   carries a `Karibche-Fidelity-Warning` header naming it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { Merchant, Profile } from '../merchants/merchant.ts';
import type { Services } from '../services.ts';
import { BANK_ENDPOINTS, bankView, endpointPath } from './bank-presenter.ts';

export const FIDELITY_HEADER = 'Karibche-Fidelity-Warning';

declare module 'fastify' {
  interface FastifyInstance {
    /** The profile a request is answered in (resolved once, then kept on the request). */
    profileOf?: (request: FastifyRequest) => Promise<Profile>;
  }
  interface FastifyRequest {
    profile?: Profile;
    /** Body properties lenient binding dropped because no endpoint field has that name. */
    ignoredFields?: string[];
  }
}

/** Requests of the merchant API (any product alias): the only ones a profile applies to. */
const isMerchantApi = (request: FastifyRequest) => request.url.startsWith('/v1/');

/** `POST /payments/:payId/cancel`, or null for a request no route matched. */
const endpointOf = (request: FastifyRequest) =>
  request.is404 || !request.routeOptions.url ? null : `${request.method} ${endpointPath(request.routeOptions.url)}`;

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The merchant a request belongs to when authentication has not (yet, or at all) said so. */
async function attribute(s: Services, request: FastifyRequest): Promise<Merchant | null> {
  const key = request.headers.apikey;
  if (typeof key === 'string' && key.length > 0 && key.length <= 200) {
    const m = await s.merchants.byApiKey(key);
    if (m) return m;
  }
  const bearer = BEARER.exec(request.headers.authorization ?? '');
  const claims = bearer ? await s.tokens.verify(bearer[1]!) : null;
  if (claims) return s.merchants.byId(claims.clientId);
  // A token request with a wrong key still names its merchant.
  const body = request.body;
  if (body && typeof body === 'object') {
    const entry = Object.entries(body).find(([k]) => k.toLowerCase() === 'client_id');
    if (typeof entry?.[1] === 'string' && entry[1].length <= 64) return s.merchants.byId(entry[1]);
  }
  return null;
}

export async function resolveProfile(s: Services, request: FastifyRequest): Promise<Profile> {
  const known = knownProfile(request);
  if (known) return known;
  let profile: Profile = 'karibche';
  if (isMerchantApi(request)) {
    try {
      profile = (request.merchant ?? (await attribute(s, request)))?.profile ?? 'karibche';
    } catch (err) {
      request.log.warn({ err }, 'could not tell the merchant of a request; answering in the default profile');
    }
  }
  request.profile = profile;
  return profile;
}

/**
 * The profile when it is known without waiting: decided already, or the request authenticated as a
 * merchant (every merchant API call past its route's authentication). Same answer as resolveProfile.
 */
function knownProfile(request: FastifyRequest): Profile | undefined {
  if (request.profile) return request.profile;
  if (request.merchant && isMerchantApi(request)) return (request.profile = request.merchant.profile ?? 'karibche');
  return undefined;
}

/**
 * Runs `then` with the request's profile: at once when it is known (the hot path: no promise, no
 * microtask), else once resolved. For Fastify's callback-style hooks.
 */
function withProfile(
  s: Services,
  request: FastifyRequest,
  then: (profile: Profile) => void,
  fail: (err: Error) => void,
): void {
  const known = knownProfile(request);
  if (known) return void then(known);
  resolveProfile(s, request).then(then, fail);
}

/** The Idempotency-Key the gateway honours for this request: none in the bank profile. */
export function honouredIdempotencyKey(request: FastifyRequest): string | string[] | undefined {
  return request.profile === 'bank' ? undefined : request.headers['idempotency-key'];
}

/** Printable ASCII, bounded: client-chosen names go into a header. */
const headerSafe = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 80);

/** What this request relied on that the bank does not have (default profile). */
export function fidelityWarnings(request: FastifyRequest): string[] {
  const out: string[] = [];
  if (request.headers['idempotency-key'] !== undefined)
    out.push('Idempotency-Key: the bank ignores this header; a retried request is executed again');
  const endpoint = endpointOf(request);
  if (endpoint && !BANK_ENDPOINTS.has(endpoint)) out.push(`${endpoint}: the bank has no such endpoint`);
  if (
    endpoint === 'POST /access-token' &&
    request.body !== undefined &&
    !/^application\/x-www-form-urlencoded\b/i.test(String(request.headers['content-type'] ?? ''))
  ) {
    out.push('access-token body: the bank takes form data (application/x-www-form-urlencoded) only');
  }
  for (const field of (request.ignoredFields ?? []).slice(0, 10))
    out.push(`field ${headerSafe(field)}: the bank ignores it (and so does Karibche)`);
  return out;
}

/** Headers only Karibche sends. */
const KARIBCHE_HEADERS = /^(x-request-id|idempotent-replayed|karibche-.*)$/i;

export function installProfiles(app: FastifyInstance, s: Services): void {
  app.decorate('profileOf', (request: FastifyRequest) => resolveProfile(s, request));

  // After authentication (route onRequest hooks), before the body is checked or anything runs.
  // Both hooks in Fastify's callback style: for an authenticated call the profile is known at once,
  // and an async hook would cost every request a promise and a microtask turn.
  app.addHook('preValidation', (request, reply, done) => {
    if (!isMerchantApi(request) || request.is404) return done();
    withProfile(
      s,
      request,
      (profile) => {
        if (profile !== 'bank') return done();
        const endpoint = endpointOf(request)!;
        if (!BANK_ENDPOINTS.has(endpoint))
          return done(
            gatewayError(ERRORS.routeNotFound, {
              detail: `No endpoint ${request.method} ${request.url.split('?')[0]}`,
            }),
          );
        if (
          endpoint === 'POST /access-token' &&
          !/^application\/x-www-form-urlencoded\b/i.test(String(request.headers['content-type'] ?? ''))
        ) {
          return done(
            gatewayError(ERRORS.invalidClientCredentials, { detail: 'client_id or client_secret is missing or wrong' }),
          );
        }
        reshape(reply, endpoint);
        done();
      },
      done,
    );
  });

  // Registered after the API's own onSend (security headers, X-Request-Id): it has the last word.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!isMerchantApi(request)) return done(null, payload);
    withProfile(
      s,
      request,
      (profile) => {
        if (profile === 'bank') {
          for (const name of Object.keys(reply.getHeaders())) if (KARIBCHE_HEADERS.test(name)) reply.removeHeader(name);
        } else {
          const warnings = fidelityWarnings(request);
          if (warnings.length) reply.header(FIDELITY_HEADER, warnings);
        }
        done(null, payload);
      },
      done,
    );
  });
}

/**
 * Successful answers of a bank-profile request are serialised in the bank's shape. (A reply's own
 * serializer also sees strings: the bank's problem JSON arrives finished and passes as it is.)
 */
function reshape(reply: FastifyReply, endpoint: string): void {
  reply.type('application/json; charset=utf-8');
  reply.serializer((payload: unknown) =>
    typeof payload === 'string' ? payload : JSON.stringify(bankView(endpoint, payload)),
  );
}
