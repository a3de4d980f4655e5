// Generated credentials. All are high-entropy random strings, so a SHA-256 digest is a sound way to
// store the ones we only need to recognise (API keys, client secrets, the admin token).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const newClientId = () => `kc${randomBytes(10).toString('hex')}`;
export const newApiKey = () => `kbk_${randomBytes(24).toString('base64url')}`;
export const newClientSecret = () => `kbs_${randomBytes(32).toString('base64url')}`;
/** Standard Webhooks' secret format: `whsec_` and the base64 of 32 random bytes (the key). */
export const newCallbackSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
export const newAdminToken = () => `kba_${randomBytes(32).toString('base64url')}`;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of a presented secret with a stored digest. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A short, non-secret label of a key for listings and logs. */
export const keyPrefix = (key: string) => `${key.slice(0, 10)}…`;
