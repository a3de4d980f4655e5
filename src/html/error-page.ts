// The one HTML presenter of errors, for the pages a person reads (the checkout, the dashboard):
// whatever a page's route threw is first made a catalogue error (api/catalogue-error.ts, the same
// classification the API's problem JSON uses), then answered with the catalogue's status as a page in
// the surface's layout and language — never JSON, never cached, never a 5xx for a client's mistake,
// never the message of an unexpected error.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catalogueErrorOf, type CatalogueError } from '../api/catalogue-error.ts';

/** What a surface gives the error page: its page policy and its page of a catalogue error. */
export interface ErrorPageSurface {
  /** The page's Content-Security-Policy. */
  csp: string;
  /** The page of the error in the surface's layout, language and words. */
  page(shown: CatalogueError, request: FastifyRequest): string;
}

export function sendErrorPage(
  surface: ErrorPageSurface,
  thrown: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const shown = catalogueErrorOf(thrown, request);
  const { error } = shown;
  reply
    .code(error.def.status)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('Content-Security-Policy', surface.csp);
  // Headers that come with the kind of error, as in problem JSON (a 429's or a 503's Retry-After).
  if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
  return reply.send(surface.page(shown, request));
}
