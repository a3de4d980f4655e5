// The operator's management of merchants (SPEC 13): onboard one, read and change what it may use,
// add API keys. Credentials are answered once (only their hashes are kept); a change reaches the
// merchant directory of this process and, by notification, every other.
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError, invalidFields } from '../errors/gateway-error.ts';
import type { Db } from '../store/db.ts';
import { newApiKey } from './credentials.ts';
import type { MerchantDirectory } from './directory.ts';
import { DEFAULT_SETTINGS, type Merchant, type MerchantSettings } from './merchant.ts';
import { checkSettings, type SettingsInput } from './settings.ts';
import {
  insertApiKey,
  insertMerchant,
  selectMerchant,
  selectMerchants,
  updateMerchantSettings,
  type NewCredentials,
} from './store.ts';

interface Deps {
  db: Db;
  clock: { now(): Date };
  merchants: Pick<MerchantDirectory, 'changed'>;
}

/** The operator's list shows at most this many merchants. */
const LIST_LIMIT = 1000;

const notFound = (clientId: string) => gatewayError(ERRORS.merchantNotFound, { detail: `No merchant ${clientId}` });

/** The merchant, or merchant-not-found (also for an id too long to be one). */
export async function findMerchant(db: Db, clientId: string): Promise<Merchant> {
  const m = clientId.length <= 64 ? await selectMerchant(db, clientId) : null;
  if (!m) throw notFound(clientId);
  return m;
}

/** The settings the input asks for, checked against the current ones; 400 with every bad field. */
function checked(input: SettingsInput, current: Pick<MerchantSettings, 'defaultCallbackUrl' | 'callbackUrlPrefixes'>) {
  const result = checkSettings(input, current);
  if (!result.ok) throw invalidFields(result.errors);
  return result.settings;
}

export function onboardMerchant(
  s: Deps,
  input: SettingsInput,
): Promise<{ merchant: Merchant; credentials: NewCredentials }> {
  const settings = checked(input, DEFAULT_SETTINGS);
  return s.db.tx((q) => insertMerchant(q, { ...settings, name: settings.name! }, s.clock.now()));
}

export const listMerchants = (db: Db): Promise<Merchant[]> => selectMerchants(db, LIST_LIMIT);

/** Changes any subset of the merchant's settings (null clears a nullable one). */
export async function changeMerchantSettings(s: Deps, clientId: string, input: SettingsInput): Promise<Merchant> {
  const patch = checked(input, await findMerchant(s.db, clientId));
  if (Object.keys(patch).length === 0) return findMerchant(s.db, clientId);
  const updated = await updateMerchantSettings(s.db, clientId, patch, s.clock.now());
  if (!updated) throw notFound(clientId);
  await s.merchants.changed(clientId);
  return updated;
}

/** Adds an API key (earlier keys stay active): the key, or null when there is no such merchant. */
export async function addMerchantApiKey(s: Deps, clientId: string): Promise<string | null> {
  if (!(await selectMerchant(s.db, clientId))) return null;
  const key = newApiKey();
  await insertApiKey(s.db, clientId, key, s.clock.now());
  await s.merchants.changed(clientId);
  return key;
}
