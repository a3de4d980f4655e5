// Rotation of a merchant's callback signing secret, the same from the operator API and the
// merchant's dashboard: the previous secret keeps signing next to the new one for a grace period,
// so the merchant can switch its verification over without losing a callback.
import type { Queryable } from '../store/db.ts';
import { rotateCallbackSecret } from './store.ts';

/** How long the previous callback secret keeps signing after a rotation. */
export const CALLBACK_SECRET_GRACE_MS = 24 * 3600_000;

/** The new secret, or null when there is no such merchant. Call merchants.changed() after it. */
export const rotateSigningSecret = (q: Queryable, clientId: string, now: Date) => rotateCallbackSecret(q, clientId, now, new Date(now.getTime() + CALLBACK_SECRET_GRACE_MS));
