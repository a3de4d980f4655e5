// Builds the HTTP application: conventions, security headers, docs, and every route group.
import { apiKeyRoutes } from './api/routes/api-keys.ts';
import { installRequestLog } from './api/request-log-hooks.ts';
import { requestLogRoutes } from './api/routes/request-log.ts';
import { failedCallbackRoutes } from './api/routes/failed-callbacks.ts';
import { eventRoutes } from './api/routes/events.ts';
import { EventHub } from './feed/hub.ts';
import { AccessLog } from './ops/access-log.ts';
import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { adminRoutes } from './admin/routes.ts';
import { AuthFailures } from './api/auth-failures.ts';
import { ERRORS } from './errors/catalogue.ts';
import { BODY_LIMIT, registerHttpConventions } from './api/http.ts';
import { sendProblem } from './api/problem.ts';
import { gatewayError } from './errors/gateway-error.ts';
import { accessTokenRoute } from './api/routes/access-token.ts';
import { callbackRoutes } from './api/routes/callbacks.ts';
import { operationRoutes } from './api/routes/operations.ts';
import { paymentRoutes } from './api/routes/payments.ts';
import { ProblemSchema } from './api/schemas.ts';
import { apiSecurityHeaders } from './api/security-headers.ts';
import { installProfiles } from './api/profiles.ts';
import { checkoutRoutes, isCheckoutPage, sendCheckoutNotFound } from './checkout/routes.ts';
import { isDashboardPage, sendDashboardNotFound } from './dashboard/http.ts';
import { createDashboard, dashboardRoutes } from './dashboard/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import { SECURITY_SCHEMES, describeRoute } from './docs/openapi.ts';
import { opsRoutes } from './ops/routes.ts';
import { sandboxRoutes } from './sandbox/routes.ts';
import { installSimulatedFaultHeader } from './sandbox/simulated-fault-header.ts';
import type { Services } from './services.ts';

export async function buildApp(s: Services, draining: { value: boolean } = { value: false }): Promise<FastifyInstance> {
  const { config } = s;
  const patterns: RegExp[] = [];
  const dashboard = await createDashboard(s);
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    if (isCheckoutPage(path)) return sendCheckoutNotFound(request, reply);
    if (isDashboardPage(path)) return sendDashboardNotFound(dashboard, request, reply);
    const known = patterns.some((p) => p.test(path));
    const err = known
      ? gatewayError(ERRORS.methodNotAllowed, { detail: `${request.method} is not allowed on ${path}` })
      : gatewayError(ERRORS.routeNotFound, { detail: `No endpoint ${request.method} ${path}` });
    return sendProblem(reply, config.publicUrl, err);
  };

  const app = Fastify({
    loggerInstance: s.log as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    logController: new AccessLog(),
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: true },
    ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false } },
    // Errors the router raises before any route runs (an over-long or undecodable path segment):
    // answered in our shapes too, never Fastify's default JSON.
    frameworkErrors: (error, request, reply) => {
      if (isCheckoutPage(request.url)) return sendCheckoutNotFound(request, reply);
      if (isDashboardPage(request.url)) return sendDashboardNotFound(dashboard, request, reply);
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const path = request.url.split('?')[0]!.slice(0, 200);
      return sendProblem(
        reply,
        config.publicUrl,
        tooLong
          ? gatewayError(ERRORS.uriTooLong)
          : gatewayError(ERRORS.routeNotFound, { detail: `Malformed path ${path}` }),
      );
    },
  });

  if (config.mode === 'sandbox') installSimulatedFaultHeader(app);
  registerHttpConventions(app, config.publicUrl, notFound);
  await app.register(formbody, { bodyLimit: BODY_LIMIT });
  await app.register(cookie);
  // Flood guard per source address on the routes that opt in (the token endpoint). It counts in
  // process memory; the brute-force limit that must hold across processes is auth-failures.ts.
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, ctx) =>
      gatewayError(ERRORS.tooManyRequests, { detail: `Too many requests; retry in ${ctx.after}` }),
  });
  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Karibche payment gateway API',
        version: '1.0.0',
        description: `Merchant API (/v1/gateway), operator API (/admin/v1) and sandbox tools (/sandbox/v1). Errors: /docs/errors.${
          config.callbackSourceAddresses.length
            ? ` Callbacks are sent from ${config.callbackSourceAddresses.join(', ')}: allow these addresses on your callback endpoint.`
            : ''
        }`,
      },
      servers: [{ url: config.publicUrl }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: describeRoute,
  });

  // 405 for a known path with another method: remember every route's path as a pattern.
  app.addHook('onRoute', (route) => {
    const re = route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+');
    patterns.push(new RegExp(`^${re}/?$`));
  });
  app.setNotFoundHandler(notFound);

  const securityHeaders = apiSecurityHeaders(config.mode);
  const { 'Content-Security-Policy': _csp, ...withoutCsp } = securityHeaders;
  // Hooks that never wait are written in Fastify's callback style: an async hook costs every
  // request a promise and a turn of the microtask queue (docs/performance.md).
  app.addHook('onSend', (request, reply, payload, done) => {
    // Pages with a policy of their own (the checkout) keep it; everything else gets the API's.
    reply.headers(reply.hasHeader('content-security-policy') ? withoutCsp : securityHeaders);
    reply.header('X-Request-Id', request.id);
    if (draining.value) reply.header('Connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    s.metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });

  installRequestLog(app, s);
  installProfiles(app, s);

  // The open event streams of this process; ended before the server closes, so that a graceful
  // stop never waits for a client that keeps its stream open.
  const events = new EventHub(s.db, s.log);
  app.addHook('preClose', async () => events.close());

  const failures = new AuthFailures(s.db, s.clock, config.authFailureLimit, config.authFailureWindowSeconds);
  for (const product of ['gateway', ...config.pathAliases]) {
    const hide = product !== 'gateway';
    await app.register(
      async (scope) => {
        accessTokenRoute(scope, s, failures, hide);
        paymentRoutes(scope, s, `/v1/${product}`, hide);
        callbackRoutes(scope, s, hide);
        apiKeyRoutes(scope, s, hide);
        failedCallbackRoutes(scope, s, hide);
        requestLogRoutes(scope, s, hide);
        eventRoutes(scope, s, events, hide);
        operationRoutes(scope, s, `/v1/${product}`, hide);
      },
      { prefix: `/v1/${product}` },
    );
  }
  await app.register(async (scope) => adminRoutes(scope, s), { prefix: '/admin/v1' });
  if (config.mode === 'sandbox')
    await app.register(async (scope) => sandboxRoutes(scope, s), { prefix: '/sandbox/v1' });
  await app.register(async (scope) => checkoutRoutes(scope, s));
  await app.register(async (scope) => dashboardRoutes(scope, dashboard));
  opsRoutes(app, s);
  docsRoutes(app, config.publicUrl);
  return app;
}
