// HTTP conventions shared by every route (SPEC 1 and 12): JSON parsing that tolerates an empty
// body, lenient binding before validation, and one error handler that answers problem JSON.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError, isGatewayError } from '../errors/gateway-error.ts';
import { catalogueErrorOf } from './catalogue-error.ts';
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

export function registerHttpConventions(
  app: FastifyInstance,
  publicUrl: string,
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown,
): void {
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
      if (!/^application\/json\b/i.test(type))
        throw gatewayError(ERRORS.unsupportedMediaType, { detail: `Unsupported Content-Type: ${type.split(';')[0]}` });
    }
    const schema = request.routeOptions.schema?.body as object | undefined;
    if (schema && request.body !== undefined) {
      const ignored: string[] = [];
      request.body = normalizeBody(request.body, schema, !request.routeOptions.config.keepNulls, ignored);
      if (ignored.length) request.ignoredFields = ignored;
    }
    if (schema && request.body === undefined) request.body = {};
  }

  // Everything thrown on an API route is answered as a catalogue error (catalogue-error.ts).
  app.setErrorHandler((error: unknown, request, reply) => {
    // A body that cannot be parsed for a path that does not exist: the path is the answer.
    if (request.is404 && !isGatewayError(error)) return notFound(request, reply);
    return sendProblem(reply, publicUrl, catalogueErrorOf(error, request).error);
  });
}
