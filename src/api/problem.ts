import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, systemCode, type ErrorDef, type Operation } from './errors.ts';

export interface InvalidParam {
  name: string;
  reason: string;
  /** The specific rule's systemCode, when a named rule (not just the field's shape) failed. */
  systemCode?: string;
}

export interface ProblemOptions {
  detail?: string;
  invalidParams?: InvalidParam[];
  resultCode?: string;
  headers?: Record<string, string>;
}

/** Thrown anywhere below a route; the error handler turns it into problem JSON. */
export class ProblemError extends Error {
  constructor(
    readonly def: ErrorDef,
    readonly options: ProblemOptions = {},
  ) {
    super(options.detail ?? def.title);
  }
}

export function problem(def: ErrorDef, options: ProblemOptions = {}): ProblemError {
  return new ProblemError(def, options);
}

/** A rule violation found while validating one field. */
export interface FieldError {
  field: string;
  reason: string;
  rule: ErrorDef;
}

/**
 * Turns the field errors of one request into a single problem: when every failure is the same
 * named rule, its systemCode is the problem's; otherwise the generic invalid-request code.
 */
export function fieldProblem(op: Operation, errors: FieldError[]): ProblemError {
  const rules = new Set(errors.map((e) => e.rule));
  const def = rules.size === 1 ? errors[0]!.rule : ERRORS.invalidRequest;
  const invalidParams = errors.map((e) => ({
    name: e.field,
    reason: e.reason,
    ...(e.rule === ERRORS.invalidRequest ? {} : { systemCode: systemCode(op, e.rule) }),
  }));
  const detail =
    errors.length === 1 ? `${errors[0]!.field} ${errors[0]!.reason}` : `Invalid fields: ${[...new Set(errors.map((e) => e.field))].join(', ')}`;
  return new ProblemError(def, { detail, invalidParams });
}

export function operationOf(request: FastifyRequest): Operation {
  return ((request.routeOptions?.config as { operation?: Operation } | undefined)?.operation ?? 'system') as Operation;
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

export function problemBody(publicUrl: string, op: Operation, err: ProblemError, requestId?: string): ProblemBody {
  // On the access-token endpoint every malformed credential request is "invalid client credentials".
  const def = op === 'access-token' && err.def === ERRORS.invalidRequest ? ERRORS.invalidClientCredentials : err.def;
  const code = systemCode(op, def);
  const body: ProblemBody = {
    type: `${publicUrl}/docs/errors#${code}`,
    title: def.title,
    status: String(def.status),
    systemCode: code,
    detail: err.options.detail ?? def.meaning,
  };
  const resultCode = err.options.resultCode ?? def.resultCode;
  if (resultCode) body.resultCode = resultCode;
  if (err.options.invalidParams?.length) body.invalidParams = err.options.invalidParams;
  if (requestId) body.requestId = requestId;
  return body;
}

export function sendProblem(reply: FastifyReply, publicUrl: string, err: ProblemError): FastifyReply {
  const op = operationOf(reply.request);
  const body = problemBody(publicUrl, op, err, reply.request.id);
  if (err.options.headers) reply.headers(err.options.headers);
  if (err.def.status === 401 && err.def === ERRORS.invalidToken) reply.header('WWW-Authenticate', 'Bearer error="invalid_token"');
  return reply.code(err.def.status).type('application/problem+json; charset=utf-8').send(body);
}
