// The static files of a server-rendered page (its stylesheet and script), read once at start and
// served from its own origin: the pages' policy allows no other.
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' };

/** Serves each file of `dir` named in `names` at `${prefix}/${name}`. */
export function serveAssets(app: FastifyInstance, prefix: string, dir: URL, names: readonly string[]): void {
  for (const name of names) {
    const body = fs.readFileSync(new URL(name, dir), 'utf8');
    const type = TYPES[name.split('.').pop()!]!;
    app.get(`${prefix}/${name}`, { schema: { hide: true } }, async (_r, reply) =>
      reply.type(type).header('Cache-Control', 'public, max-age=3600').send(body),
    );
  }
}
