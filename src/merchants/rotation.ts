// Rotation of a merchant's credentials, the same from the operator API and the merchant's
// dashboard. The callback signing secret: the previous secret keeps signing next to the new one for
// a grace period, so the merchant can switch its verification over without losing a callback. The
// client secret: tokens issued under the earlier one stop working. Either change reaches the
// merchant directory of this process and, by notification, every other.
import type { Db, Queryable } from '../store/db.ts';
import type { MerchantDirectory } from './directory.ts';
import { rotateCallbackSecret, rotateClientSecret } from './store.ts';

/** How long the previous callback secret keeps signing after a rotation. */
export const CALLBACK_SECRET_GRACE_MS = 24 * 3600_000;

interface Deps {
  db: Db;
  clock: { now(): Date };
  merchants: Pick<MerchantDirectory, 'changed'>;
}

/** The new secret, or null when there is no such merchant. Call merchants.changed() after it. */
export const rotateSigningSecret = (q: Queryable, clientId: string, now: Date) =>
  rotateCallbackSecret(q, clientId, now, new Date(now.getTime() + CALLBACK_SECRET_GRACE_MS));

/** Rotates the callback signing secret: the new secret, or null when there is no such merchant. */
export async function rotateMerchantSigningSecret(s: Deps, clientId: string): Promise<string | null> {
  const secret = await rotateSigningSecret(s.db, clientId, s.clock.now());
  if (secret) await s.merchants.changed(clientId);
  return secret;
}

/** Rotates the client secret: the new secret, or null when there is no such merchant. */
export async function rotateMerchantClientSecret(s: Deps, clientId: string): Promise<string | null> {
  const secret = await rotateClientSecret(s.db, clientId, s.clock.now());
  if (secret) await s.merchants.changed(clientId);
  return secret;
}
