// CSRF protection for the checkout forms: a random per-browser cookie (HttpOnly, SameSite=Strict)
// and, in each form, an HMAC of that cookie and the payment. A forged form from another site has
// neither the cookie nor a token that matches it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const CSRF_COOKIE = 'kb_csrf';

export const newCsrfCookie = () => randomBytes(16).toString('hex');

export function csrfToken(secret: Buffer, cookie: string, payId: string): string {
  return createHmac('sha256', secret).update(`csrf|${cookie}|${payId}`).digest('base64url');
}

export function csrfValid(secret: Buffer, cookie: string | undefined, payId: string, token: unknown): boolean {
  if (!cookie || typeof token !== 'string') return false;
  const expected = Buffer.from(csrfToken(secret, cookie, payId));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The unguessable part of a payment's QR link (the simulated banking app opens it). */
export function qrToken(secret: Buffer, payId: string): string {
  return createHmac('sha256', secret).update(`qr|${payId}`).digest('base64url').slice(0, 22);
}
