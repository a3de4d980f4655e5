// Problem JSON (SPEC 12): how the API answers a GatewayError. The operation of the route decides
// the systemCode; headers that belong to a kind of error (Retry-After, WWW-Authenticate) are added
// here, so the code that raises an error never speaks HTTP.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, systemCode, type Operation } from '../errors/catalogue.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import { bankProblem } from './bank-presenter.ts';

export interface InvalidParam {
  name: string;
  reason: string;
  /** The specific rule's systemCode, when a named rule (not just the field's shape) failed. */
  systemCode?: string;
}

export function operationOf(request: FastifyRequest): Operation {
  return request.routeOptions?.config?.operation ?? 'system';
}

export interface ProblemBody {
  type: string;
  title: string;
  status: string;
  systemCode: string;
  detail: string;
  resultCode?: string;
  invalidParams?: InvalidParam[];
  requestId?: string;
}

export function problemBody(publicUrl: string, op: Operation, err: GatewayError, requestId?: string): ProblemBody {
  // On the access-token endpoint every malformed credential request is "invalid client credentials".
  const def = op === 'access-token' && err.def === ERRORS.invalidRequest ? ERRORS.invalidClientCredentials : err.def;
  const code = systemCode(op, def);
  const body: ProblemBody = {
    type: `${publicUrl}/docs/errors#${code}`,
    title: def.title,
    status: String(def.status),
    systemCode: code,
    detail: err.detail ?? def.meaning,
  };
  const resultCode = err.resultCode ?? def.resultCode;
  if (resultCode) body.resultCode = resultCode;
  if (err.fields.length) {
    body.invalidParams = err.fields.map((f) => ({
      name: f.field,
      reason: f.reason,
      ...(f.rule === ERRORS.invalidRequest ? {} : { systemCode: systemCode(op, f.rule) }),
    }));
  }
  if (requestId) body.requestId = requestId;
  return body;
}

/** Headers that come with a kind of error. */
function problemHeaders(err: GatewayError): Record<string, string> {
  const h: Record<string, string> = {};
  if (err.retryAfterSeconds !== undefined) h['Retry-After'] = String(err.retryAfterSeconds);
  if (err.def === ERRORS.invalidToken) h['WWW-Authenticate'] = 'Bearer error="invalid_token"';
  if (err.def === ERRORS.adminUnauthorized) h['WWW-Authenticate'] = 'Bearer realm="karibche-admin"';
  return h;
}

/** Answers the error in the shape of the request's profile (profiles.ts): Karibche's problem JSON, or the bank's. */
export async function sendProblem(reply: FastifyReply, publicUrl: string, err: GatewayError): Promise<FastifyReply> {
  const request = reply.request;
  const profile = (await request.server.profileOf?.(request)) ?? 'karibche';
  reply.code(err.def.status).headers(problemHeaders(err));
  if (profile === 'bank') {
    // Finished JSON: the bank profile's success serializer passes strings through (profiles.ts).
    const body = JSON.stringify(bankProblem(operationOf(request), err, String(request.id)));
    return reply.type('application/json; charset=utf-8').header('Content-Language', 'en').send(body);
  }
  return reply
    .type('application/problem+json; charset=utf-8')
    .send(problemBody(publicUrl, operationOf(request), err, request.id));
}
