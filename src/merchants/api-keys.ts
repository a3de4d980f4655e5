// Merchant self-service API keys (Karibche extension): created keys are shown once and stored as a
// digest; revocation drops the directory cache here and, by notification, in every other process.
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { UnitOfWork } from '../idempotency/unit-of-work.ts';
import type { Db } from '../store/db.ts';
import { apiKeyId, revokeApiKey, selectActiveApiKeys, type ApiKeyInfo } from './api-key-store.ts';
import { hashSecret, keyPrefix, newApiKey } from './credentials.ts';
import type { MerchantDirectory } from './directory.ts';
import { insertApiKey } from './store.ts';

interface Deps {
  db: Db;
  merchants: MerchantDirectory;
  clock: { now(): Date };
}

export const MAX_ACTIVE_KEYS = 10;

/**
 * Creates a key in the request's unit of work (an Idempotency-Key runs it once). What the unit of
 * work stores for a replay is the key's id, prefix and creation time: never the key itself, which
 * exists only as a digest once this answer is sent (a replay names the key but cannot show it).
 */
/** A created key as a replay answers it: the key itself only in the first answer. */
export type CreatedApiKey = ApiKeyInfo & { apiKey?: string };

export async function createApiKey(
  s: Deps,
  clientId: string,
  uow: UnitOfWork<CreatedApiKey>,
): Promise<ApiKeyInfo & { apiKey: string }> {
  const apiKey = newApiKey();
  const info = await uow.finish(async (q) => {
    const active = await selectActiveApiKeys(q, clientId);
    if (active.length >= MAX_ACTIVE_KEYS)
      throw gatewayError(ERRORS.tooManyApiKeys, {
        detail: `At most ${MAX_ACTIVE_KEYS} active API keys; revoke one first`,
      });
    const now = s.clock.now();
    await insertApiKey(q, clientId, apiKey, now);
    return { id: apiKeyId(hashSecret(apiKey)), prefix: keyPrefix(apiKey), createdAt: now.toISOString() };
  });
  return { ...info, apiKey };
}

export const listApiKeys = (s: Deps, clientId: string) => selectActiveApiKeys(s.db, clientId);

/** Revokes a key in the request's unit of work (an Idempotency-Key replays the first answer). */
export async function deleteApiKey(
  s: Deps,
  clientId: string,
  id: string,
  uow: UnitOfWork<{ revoked: string }>,
): Promise<void> {
  await uow.finish(async (q) => {
    const outcome = await revokeApiKey(q, clientId, id, s.clock.now());
    if (outcome === 'missing')
      throw gatewayError(ERRORS.apiKeyNotFound, { detail: `No active API key ${printable(id).slice(0, 40)}` });
    if (outcome === 'last') throw gatewayError(ERRORS.lastApiKey);
    return { revoked: id }; // (not null: a stored null reads as a key finished before results were kept)
  });
  await s.merchants.changed(clientId);
}

/** An id as the caller sent it, for a message: control characters left out. */
const printable = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
