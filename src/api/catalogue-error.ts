// What was thrown, as an error of the catalogue: the one classification every surface presents —
// the API, sandbox and admin as problem JSON (problem.ts), the checkout and the dashboard as an
// HTML page (html/error-page.ts). A GatewayError is already one; a request the framework could not
// read (its schema, a body parser) becomes the catalogue's 4xx for it; a database outage or a
// conflict PostgreSQL rolled back is `unavailable`; anything else is `internal`, logged here, its
// message never shown.
import type { FastifyBaseLogger, FastifyError } from 'fastify';
import { ERRORS } from '../errors/catalogue.ts';
import {
  gatewayError,
  invalidFields,
  isGatewayError,
  type FieldError,
  type GatewayError,
} from '../errors/gateway-error.ts';
import { isConflict, isUnavailable } from '../store/db.ts';

/**
 * Where a catalogue error came from. `gateway`: thrown by the gateway's code, in its own words.
 * `request`: a request the framework could not read, made a catalogue error here. `server`: not the
 * client's doing (an outage, a conflict, a fault), logged here.
 */
export type ErrorOrigin = 'gateway' | 'request' | 'server';

export interface CatalogueError {
  error: GatewayError;
  origin: ErrorOrigin;
}

/** The catalogue error of whatever a route threw; `request` gives the request id and its log. */
export function catalogueErrorOf(thrown: unknown, request: { id: unknown; log: FastifyBaseLogger }): CatalogueError {
  if (isGatewayError(thrown)) return { error: thrown, origin: 'gateway' };
  const fe = (thrown ?? {}) as Partial<FastifyError> & { validation?: AjvError[]; validationContext?: string };
  if (fe.validation)
    return {
      error: invalidFields(fieldErrorsFromAjv(fe.validation, fe.validationContext ?? 'body')),
      origin: 'request',
    };
  const mapped = thrown instanceof Error ? mapFrameworkError(fe as FastifyError) : null;
  if (mapped) return { error: mapped, origin: 'request' };
  if (isUnavailable(thrown)) {
    request.log.warn({ err: thrown }, 'database unavailable');
    return { error: gatewayError(ERRORS.unavailable, { retryAfterSeconds: 5 }), origin: 'server' };
  }
  if (isConflict(thrown)) {
    request.log.error({ err: thrown }, 'database conflict: the request was rolled back');
    return {
      error: gatewayError(ERRORS.unavailable, {
        detail: 'A concurrent change got in the way and nothing was changed; retry the request.',
        retryAfterSeconds: 1,
      }),
      origin: 'server',
    };
  }
  request.log.error({ err: thrown }, 'unhandled error');
  return {
    error: gatewayError(ERRORS.internal, { detail: `Internal error (request id ${String(request.id)})` }),
    origin: 'server',
  };
}

/** `/amount/currency` → `amount.currency`, `/methods/0` → `methods[0]`. */
function fieldName(instancePath: string, missing?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (missing) parts.push(missing);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function fieldErrorsFromAjv(errors: AjvError[], context: string): FieldError[] {
  const seen = new Map<string, FieldError>();
  for (const e of errors) {
    // Branches of an anyOf each report; the anyOf's own error says enough.
    if (e.keyword === 'anyOf' || e.keyword === 'if') continue;
    const missing = e.keyword === 'required' ? String(e.params.missingProperty) : undefined;
    const name = fieldName(e.instancePath, missing) || context;
    let reason: string;
    if (missing) reason = 'is required';
    else if (e.keyword === 'type') reason = `must be ${String(e.params.type).replace(',', ' or ')}`;
    else if (e.keyword === 'enum') reason = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    else reason = e.message ?? 'is invalid';
    const prev = seen.get(name);
    if (prev) {
      if (e.keyword === 'type' && prev.reason.startsWith('must be ') && !prev.reason.includes(reason.slice(8))) {
        prev.reason = `${prev.reason} or ${reason.slice(8)}`;
      }
      continue;
    }
    seen.set(name, { field: name, reason, rule: ERRORS.invalidRequest });
  }
  return [...seen.values()];
}

function mapFrameworkError(e: FastifyError): GatewayError | null {
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return gatewayError(ERRORS.payloadTooLarge);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return gatewayError(ERRORS.unsupportedMediaType, {
        detail: e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'Unsupported Content-Type' : e.message,
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return gatewayError(ERRORS.malformedBody, { detail: 'The body is not valid JSON' });
  }
  if (e instanceof SyntaxError || (e.statusCode === 400 && /JSON|prototype|constructor/i.test(e.message))) {
    return gatewayError(ERRORS.malformedBody, { detail: 'The body is not valid JSON' });
  }
  if (e.statusCode === 429) return gatewayError(ERRORS.tooManyRequests);
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    if (e.statusCode === 413) return gatewayError(ERRORS.payloadTooLarge);
    if (e.statusCode === 415) return gatewayError(ERRORS.unsupportedMediaType);
    if (e.statusCode === 405) return gatewayError(ERRORS.methodNotAllowed);
    return gatewayError(ERRORS.malformedBody, { detail: e.message });
  }
  return null;
}
