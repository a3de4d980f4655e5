// A URL someone else gave us (a shop's return URL, stored at create) made fit for an HTTP header.
// Node refuses to send a header with CR/LF or a character outside Latin-1 (ERR_INVALID_CHAR, which
// Fastify answers with its own 500), and a Location header should be plain ASCII anyway: the URL
// standard's serialisation percent-encodes the path, query and fragment and turns the host into
// punycode, which is exactly what a browser would request for the same address.

/** The http(s) URL as printable ASCII (its WHATWG serialisation), or null when it is none. */
export function headerSafeUrl(raw: string): string | null {
  if (!URL.canParse(raw)) return null;
  const url = new URL(raw);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return null;
  return /^[\x21-\x7e]+$/.test(url.href) ? url.href : null;
}

/** The origin of such a URL (for a Content-Security-Policy), or '' when it has none. */
export const headerSafeOrigin = (raw: string): string => {
  const safe = headerSafeUrl(raw);
  return safe ? new URL(safe).origin : '';
};
