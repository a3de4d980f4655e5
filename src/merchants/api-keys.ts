// Merchant self-service API keys (Karibche extension): created keys are shown once and stored as a
// digest; revocation drops the directory cache here and, by notification, in every other process.
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
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

export async function createApiKey(s: Deps, clientId: string): Promise<ApiKeyInfo & { apiKey: string }> {
  const active = await selectActiveApiKeys(s.db, clientId);
  if (active.length >= MAX_ACTIVE_KEYS) throw gatewayError(ERRORS.tooManyApiKeys, { detail: `At most ${MAX_ACTIVE_KEYS} active API keys; revoke one first` });
  const apiKey = newApiKey();
  const now = s.clock.now();
  await insertApiKey(s.db, clientId, apiKey, now);
  return { id: apiKeyId(hashSecret(apiKey)), prefix: keyPrefix(apiKey), createdAt: now.toISOString(), apiKey };
}

export const listApiKeys = (s: Deps, clientId: string) => selectActiveApiKeys(s.db, clientId);

export async function deleteApiKey(s: Deps, clientId: string, id: string): Promise<void> {
  const outcome = await revokeApiKey(s.db, clientId, id, s.clock.now());
  if (outcome === 'missing') throw gatewayError(ERRORS.apiKeyNotFound, { detail: `No active API key ${printable(id).slice(0, 40)}` });
  if (outcome === 'last') throw gatewayError(ERRORS.lastApiKey);
  await s.merchants.changed(clientId);
}

/** An id as the caller sent it, for a message: control characters left out. */
const printable = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
