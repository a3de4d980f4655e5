// Operations endpoints: liveness, readiness (the database answers), Prometheus metrics.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

const READY_TIMEOUT_MS = 2_000;

export function opsRoutes(app: FastifyInstance, s: Services): void {
  const hide = { hide: true };
  // The pid tells which worker process answered (KARIBCHE_WORKERS).
  app.get('/healthz', { schema: hide }, async () => ({ status: 'ok', pid: process.pid }));

  app.get('/readyz', { schema: hide }, async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        s.db.query('SELECT 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS);
        }),
      ]);
      return { status: 'ready', database: s.db.kind };
    } catch (err) {
      return reply.code(503).send({ status: 'not ready', database: s.db.kind, error: (err as Error).message });
    } finally {
      clearTimeout(timer);
    }
  });

  app.get('/metrics', { schema: hide }, async (_request, reply) => {
    reply.type(s.metrics.registry.contentType);
    return s.metrics.registry.metrics();
  });
}
