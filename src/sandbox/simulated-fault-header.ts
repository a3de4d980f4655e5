// `Karibche-Simulate-Fault: 429|503` (sandbox only): the gateway answers that request with 429 Too
// Many Requests or 503 Service Unavailable (with Retry-After) before any handler runs, so nothing
// happens and an Idempotency-Key sent along is not used up — merchants test their retries with it.
// Production does not install this hook: the header is ignored there (a merchant who forgot it in
// its code must not get errors in production).
import type { FastifyInstance } from 'fastify';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError, invalidField } from '../errors/gateway-error.ts';

export const SIMULATE_FAULT_HEADER = 'karibche-simulate-fault';

/** Seconds the simulated faults ask the client to wait. */
export const SIMULATED_RETRY_AFTER = 1;

export function installSimulatedFaultHeader(app: FastifyInstance): void {
  // Callback style: it never waits, and an async hook would cost every request a promise.
  app.addHook('preValidation', (request, _reply, done) => {
    const value = request.headers[SIMULATE_FAULT_HEADER];
    if (value === undefined || request.is404 || !request.url.startsWith('/v1/')) return done();
    const detail = 'Simulated by the Karibche-Simulate-Fault header (sandbox): nothing was done; retry';
    if (value === '429')
      return done(gatewayError(ERRORS.tooManyRequests, { detail, retryAfterSeconds: SIMULATED_RETRY_AFTER }));
    if (value === '503')
      return done(gatewayError(ERRORS.unavailable, { detail, retryAfterSeconds: SIMULATED_RETRY_AFTER }));
    done(invalidField('Karibche-Simulate-Fault', 'must be 429 or 503'));
  });
}
