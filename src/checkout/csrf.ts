// CSRF protection for the checkout forms: a random per-browser cookie (HttpOnly, SameSite=Strict)
// and, in each form, an HMAC of that cookie and the payment. A forged form from another site has
// neither the cookie nor a token that matches it.
import { randomBytes } from 'node:crypto';
import { hmacToken, tokenMatches } from '../html/tokens.ts';

export const CSRF_COOKIE = 'kb_csrf';

export const newCsrfCookie = () => randomBytes(16).toString('hex');

export function csrfToken(secret: Buffer, cookie: string, payId: string): string {
  return hmacToken(secret, 'csrf', cookie, payId);
}

export function csrfValid(secret: Buffer, cookie: string | undefined, payId: string, token: unknown): boolean {
  return !!cookie && tokenMatches(csrfToken(secret, cookie, payId), token);
}

/** The unguessable part of a payment's QR link (the simulated banking app opens it). */
export function qrToken(secret: Buffer, payId: string): string {
  return hmacToken(secret, 'qr', payId).slice(0, 22);
}
