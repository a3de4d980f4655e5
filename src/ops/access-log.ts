// One access line per request instead of Fastify's two ("incoming request" and "request completed"):
// pino's serialisation of the pair cost about a third of create-payment's throughput at the
// default level (docs/performance.md). The line is written when the response has been sent, with
// what an operator greps for: method, path, status, time taken and the client's address. The URL
// is redacted as the request log's is: a card number or secret in a path or query never reaches a log.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LogController } from 'fastify';
import { redactUrl } from '../requests/redact.ts';

export class AccessLog extends LogController {
  override incomingRequest(): void {
    // Nothing: the request is in the completion line, with its outcome.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      req: { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip },
      res: { statusCode: reply.statusCode },
      responseTime: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
