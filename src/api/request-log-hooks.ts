// Feeds the merchant request log from Fastify hooks: every call that authenticated as a merchant is
// recorded after its response is sent (time, method, path, status, systemCode, latency, request id,
// redacted bodies). The write is batched by RequestLog, off the request path.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redactBody, redactUrl, truncate } from '../requests/redact.ts';
import { RequestLog } from '../requests/log.ts';
import type { Services } from '../services.ts';

declare module 'fastify' {
  interface FastifyInstance {
    requestLog: RequestLog;
  }
  interface FastifyRequest {
    responsePayload?: unknown;
  }
}

const SYSTEM_CODE = /"systemCode"\s*:\s*"([^"]{1,80})"/;

export function installRequestLog(app: FastifyInstance, s: Services): RequestLog {
  const log = new RequestLog(s.db, (err) => s.log.warn({ err }, 'request log write failed'));
  app.decorate('requestLog', log);
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.merchant) request.responsePayload = payload;
    done(null, payload);
  });
  // Callback style: the record is only queued, nothing to wait for.
  app.addHook('onResponse', (request, reply, done) => {
    if (request.merchant) record(request, reply);
    done();
  });
  const record = (request: FastifyRequest, reply: FastifyReply) => {
    const response = typeof request.responsePayload === 'string' ? request.responsePayload : null;
    log.push({
      clientId: request.merchant.clientId,
      createdAt: new Date(), // transport time: when the gateway answered
      method: request.method,
      path: truncate(redactUrl(request.url), 500),
      status: reply.statusCode,
      systemCode: reply.statusCode >= 400 && response ? (SYSTEM_CODE.exec(response)?.[1] ?? null) : null,
      latencyMs: Math.round(reply.elapsedTime),
      requestId: String(request.id),
      requestBody: redactBody(request.body),
      responseBody: redactBody(response),
    });
  };
  app.addHook('onClose', () => log.flush());
  return log;
}
