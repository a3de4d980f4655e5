// HTTP conventions shared by every route (SPEC 1 and 12): JSON parsing that tolerates an empty
// body, lenient binding before validation, and one error handler that answers problem JSON.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isConflict, isUnavailable } from '../store/db.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { GatewayError, gatewayError, invalidFields, type FieldError } from '../errors/gateway-error.ts';
import { parseJsonBody } from './json-body.ts';
import { normalizeBody } from './lenient.ts';
import { unstorableInput } from './storable.ts';
import { sendProblem } from './problem.ts';

export const BODY_LIMIT = 64 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    operation?: import('../errors/catalogue.ts').Operation;
    /** Keep explicit nulls (the admin API uses null to clear a setting). */
    keepNulls?: boolean;
    /** A sandbox endpoint for one merchant (faults, the conformance run): merchant credentials only. */
    merchantOnly?: boolean;
  }
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

export function fieldErrorsFromAjv(errors: AjvError[], context: string): FieldError[] {
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

export function registerHttpConventions(app: FastifyInstance, publicUrl: string, notFound: (request: FastifyRequest, reply: FastifyReply) => unknown): void {
  // JSON as written (json-body.ts: amounts keep their literal text, prototype keys are dropped as
  // unknown properties); an empty body is simply absent, so `Content-Type: application/json` on a
  // bodiless GET or DELETE does no harm.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = parseJsonBody(body as string);
    } catch (err) {
      // A SyntaxError: the error handler answers it as the malformed body it is (mapFrameworkError).
      (err as FastifyError).statusCode = 400;
      return done(err as Error, undefined);
    }
    done(null, parsed);
  });

  // JSON only, except that the access-token endpoint (SPEC 2) and the checkout and dashboard forms take form data.
  app.removeContentTypeParser('text/plain');
  // Callback style (it never waits; an async hook costs every request a promise). done() is called
  // outside the try: it runs the rest of the request, whose errors are not this hook's.
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      checkRequestShape(request);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });

  function checkRequestShape(request: FastifyRequest): void {
    if (request.is404) return; // the not-found handler answers, whatever the body
    // Text the database cannot keep exactly is refused here, on every route, rather than failing in
    // the database or coming back changed. (Query strings reach the database only through typed
    // schema values.)
    const problem = unstorableInput(request.params) ?? unstorableInput(request.body);
    if (problem) throw gatewayError(ERRORS.invalidRequest, { detail: problem });
    const op = request.routeOptions.config.operation;
    if (request.body !== undefined && op !== 'access-token' && op !== 'checkout' && op !== 'dashboard') {
      const type = String(request.headers['content-type'] ?? '');
      if (!/^application\/json\b/i.test(type)) throw gatewayError(ERRORS.unsupportedMediaType, { detail: `Unsupported Content-Type: ${type.split(';')[0]}` });
    }
    const schema = request.routeOptions.schema?.body as object | undefined;
    if (schema && request.body !== undefined) {
      const ignored: string[] = [];
      request.body = normalizeBody(request.body, schema, !request.routeOptions.config.keepNulls, ignored);
      if (ignored.length) request.ignoredFields = ignored;
    }
    if (schema && request.body === undefined) request.body = {};
  }

  app.setErrorHandler((error: FastifyError | GatewayError, request, reply) => {
    // A body that cannot be parsed for a path that does not exist: the path is the answer.
    if (request.is404 && !(error instanceof GatewayError)) return notFound(request, reply);
    if (error instanceof GatewayError) return sendProblem(reply, publicUrl, error);
    const fe = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
    if (fe.validation) {
      return sendProblem(reply, publicUrl, invalidFields(fieldErrorsFromAjv(fe.validation, fe.validationContext ?? 'body')));
    }
    const mapped = mapFrameworkError(fe);
    if (mapped) return sendProblem(reply, publicUrl, mapped);
    if (isUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendProblem(reply, publicUrl, gatewayError(ERRORS.unavailable, { retryAfterSeconds: 5 }));
    }
    if (isConflict(error)) {
      request.log.error({ err: error }, 'database conflict: the request was rolled back');
      return sendProblem(reply, publicUrl, gatewayError(ERRORS.unavailable, { detail: 'A concurrent change got in the way and nothing was changed; retry the request.', retryAfterSeconds: 1 }));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, publicUrl, gatewayError(ERRORS.internal, { detail: `Internal error (request id ${request.id})` }));
  });
}

function mapFrameworkError(e: FastifyError): GatewayError | null {
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return gatewayError(ERRORS.payloadTooLarge);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return gatewayError(ERRORS.unsupportedMediaType, { detail: e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'Unsupported Content-Type' : e.message });
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
