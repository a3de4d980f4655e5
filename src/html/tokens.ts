// HMAC tokens for server-rendered forms and links: a token binds its parts (a purpose, a browser
// or session secret, what the form is about) under an installation secret, so it cannot be forged
// and is worthless for any other purpose. Compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 of the parts joined by `|`, base64url. The first part names the purpose. */
export function hmacToken(secret: Buffer, ...parts: string[]): string {
  return createHmac('sha256', secret).update(parts.join('|')).digest('base64url');
}

/** True when `given` is exactly the expected token (constant time; anything not a string is false). */
export function tokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
