// Idempotency-Key over HTTP (SPEC 11): the header names the key, the operation of the route and
// the canonical request (params and body) make its hash, and src/idempotency/once.ts runs the use
// case at most once per key — answering a replay with `Idempotent-Replayed: true`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import { IDEMPOTENCY, requestHash, runOnce, type IdempotencyDeps } from '../idempotency/once.ts';
import { unkeyed, type UnitOfWork } from '../idempotency/unit-of-work.ts';
import { operationOf } from './problem.ts';
import { honouredIdempotencyKey } from './profiles.ts';

/** What a route answers for its use case's result. */
export interface Answer {
  status: number;
  body: unknown;
}

const keyProblem = () => {
  const reason = `must be 1 to ${IDEMPOTENCY.keyMaxLength} printable ASCII characters`;
  return gatewayError(ERRORS.invalidRequest, {
    detail: `Idempotency-Key ${reason}`,
    fields: [{ field: 'Idempotency-Key', reason, rule: ERRORS.invalidRequest }],
  });
};

/**
 * Runs the use case at most once per (merchant, Idempotency-Key) and answers the request. Without
 * the header the use case simply runs in a unit of work without a key.
 */
export async function idempotent<R>(
  s: IdempotencyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  run: (uow: UnitOfWork<R>) => Promise<R>,
  render: (result: R) => Answer,
): Promise<FastifyReply> {
  // The bank profile ignores the header, as the bank does (profiles.ts).
  const header = honouredIdempotencyKey(request);
  if (header === undefined) return send(reply, render(await run(unkeyed<R>(s.db))));
  const key = Array.isArray(header) ? header[0] : header;
  if (!key || key.length > IDEMPOTENCY.keyMaxLength || /[^\x20-\x7e]/.test(key)) throw keyProblem();
  const operation = operationOf(request);
  const keyed = {
    clientId: request.merchant.clientId,
    key,
    operation,
    requestHash: requestHash(operation, request.params, request.body),
  };
  const once = await runOnce({ ...s, log: request.log }, keyed, run);
  if ('stored' in once) {
    return reply
      .code(once.stored.status)
      .header('Idempotent-Replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(once.stored.body);
  }
  return send(reply, render(once.result), once.replayed);
}

function send(reply: FastifyReply, answer: Answer, replayed = false): FastifyReply {
  if (replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(answer.status).send(answer.body);
}
