// The docs are written for the default sandbox at http://127.0.0.1:8080 (`BASE=http://127.0.0.1:8080`
// in the quick start); a reader of the pages a gateway serves is talking to that gateway, so the
// served text names its own address instead: the public URL (KARIBCHE_PUBLIC_URL, by default
// http://HOST:PORT). When that URL names no reachable host (HOST=0.0.0.0 or :: without
// KARIBCHE_PUBLIC_URL), the address the reader used is the request's Host header, taken only when it
// is a plain host[:port] (it is written into pages).
import type { FastifyRequest } from 'fastify';

/** The address the repository's docs are written for. */
export const DOCS_DEFAULT_BASE = 'http://127.0.0.1:8080';
const DEFAULT_BASE_RE = /http:\/\/127\.0\.0\.1:8080(?!\d)/g;
const PLAIN_HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
const UNSPECIFIED = new Set(['0.0.0.0', '[::]']);

/** The base URL a docs reader reaches this gateway at. */
export function ownBase(publicUrl: string, request: FastifyRequest): string {
  const url = new URL(publicUrl);
  if (!UNSPECIFIED.has(url.hostname)) return publicUrl;
  const host = request.headers.host;
  return host && PLAIN_HOST.test(host) ? `${url.protocol}//${host}` : publicUrl;
}

/** `text` with the docs' default address replaced by `base`. */
export function withBase(text: string, base: string): string {
  return base === DOCS_DEFAULT_BASE ? text : text.replace(DEFAULT_BASE_RE, base);
}
