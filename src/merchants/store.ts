// SQL for merchants and their credentials: one function per database operation.
import type { Queryable } from '../store/db.ts';
import { hashSecret, keyPrefix, newApiKey, newCallbackSecret, newClientId, newClientSecret } from './credentials.ts';
import {
  DEFAULT_SETTINGS,
  merchantFromRow,
  type Merchant,
  type MerchantRow,
  type MerchantSettings,
} from './merchant.ts';

export interface NewCredentials {
  clientId: string;
  clientSecret: string;
  apiKey: string;
  callbackSecret: string;
}

const COLUMNS: Record<keyof MerchantSettings, string> = {
  name: 'name',
  status: 'status',
  currencies: 'currencies',
  methods: 'methods',
  splitEnrolled: 'split_enrolled',
  saveCardEnabled: 'save_card_enabled',
  defaultCallbackUrl: 'default_callback_url',
  callbackUrlPrefixes: 'callback_url_prefixes',
  testMode: 'test_mode',
  testAmountLimit: 'test_amount_limit',
  brandColor: 'brand_color',
  logoUrl: 'logo_url',
  profile: 'profile',
  transactionLimit: 'transaction_limit',
  dailyLimit: 'daily_limit',
};

export async function insertMerchant(
  q: Queryable,
  settings: Partial<MerchantSettings> & { name: string },
  now: Date,
): Promise<{ merchant: Merchant; credentials: NewCredentials }> {
  const s = { ...DEFAULT_SETTINGS, ...settings };
  const credentials: NewCredentials = {
    clientId: newClientId(),
    clientSecret: newClientSecret(),
    apiKey: newApiKey(),
    callbackSecret: newCallbackSecret(),
  };
  const { rows } = await q.query<MerchantRow>(
    `INSERT INTO merchants (client_id, name, status, currencies, methods, split_enrolled, save_card_enabled,
       default_callback_url, callback_url_prefixes, test_mode, test_amount_limit, brand_color, logo_url,
       client_secret_hash, callback_secret, created_at, updated_at, profile, transaction_limit, daily_limit)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$16,$17,$18,$19)
     RETURNING *`,
    [
      credentials.clientId,
      s.name,
      s.status,
      s.currencies,
      s.methods,
      s.splitEnrolled,
      s.saveCardEnabled,
      s.defaultCallbackUrl,
      s.callbackUrlPrefixes,
      s.testMode,
      s.testAmountLimit,
      s.brandColor,
      s.logoUrl,
      hashSecret(credentials.clientSecret),
      credentials.callbackSecret,
      now,
      s.profile,
      s.transactionLimit,
      s.dailyLimit,
    ],
  );
  await insertApiKey(q, credentials.clientId, credentials.apiKey, now);
  return { merchant: merchantFromRow(rows[0]!), credentials };
}

export async function insertApiKey(q: Queryable, clientId: string, apiKey: string, now: Date): Promise<void> {
  await q.query('INSERT INTO api_keys (key_hash, client_id, prefix, created_at) VALUES ($1, $2, $3, $4)', [
    hashSecret(apiKey),
    clientId,
    keyPrefix(apiKey),
    now,
  ]);
}

export async function selectMerchant(q: Queryable, clientId: string): Promise<Merchant | null> {
  const { rows } = await q.query<MerchantRow>('SELECT * FROM merchants WHERE client_id = $1', [clientId]);
  return rows[0] ? merchantFromRow(rows[0]) : null;
}

export async function selectMerchants(q: Queryable, limit: number): Promise<Merchant[]> {
  const { rows } = await q.query<MerchantRow>('SELECT * FROM merchants ORDER BY created_at, client_id LIMIT $1', [
    limit,
  ]);
  return rows.map(merchantFromRow);
}

export async function selectClientIdByApiKeyHash(q: Queryable, keyHash: string): Promise<string | null> {
  const { rows } = await q.query<{ client_id: string }>(
    'SELECT client_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [keyHash],
  );
  return rows[0]?.client_id ?? null;
}

export async function updateMerchantSettings(
  q: Queryable,
  clientId: string,
  patch: Partial<MerchantSettings>,
  now: Date,
): Promise<Merchant | null> {
  const sets: string[] = [];
  const params: unknown[] = [clientId, now];
  for (const [key, value] of Object.entries(patch) as [keyof MerchantSettings, unknown][]) {
    params.push(value);
    sets.push(`${COLUMNS[key]} = $${params.length}`);
  }
  const { rows } = await q.query<MerchantRow>(
    `UPDATE merchants SET ${[...sets, 'updated_at = $2'].join(', ')} WHERE client_id = $1 RETURNING *`,
    params,
  );
  return rows[0] ? merchantFromRow(rows[0]) : null;
}

/** New client secret; bumping secret_version invalidates every token issued before. */
export async function rotateClientSecret(q: Queryable, clientId: string, now: Date): Promise<string | null> {
  const secret = newClientSecret();
  const { rowCount } = await q.query(
    'UPDATE merchants SET client_secret_hash = $2, secret_version = secret_version + 1, updated_at = $3 WHERE client_id = $1',
    [clientId, hashSecret(secret), now],
  );
  return rowCount ? secret : null;
}

/** New callback signing secret; the previous one keeps signing alongside it until graceUntil. */
export async function rotateCallbackSecret(
  q: Queryable,
  clientId: string,
  now: Date,
  graceUntil: Date,
): Promise<string | null> {
  const secret = newCallbackSecret();
  const { rowCount } = await q.query(
    `UPDATE merchants SET callback_secret_prev = callback_secret, callback_secret_prev_until = $3,
       callback_secret = $2, updated_at = $4 WHERE client_id = $1`,
    [clientId, secret, graceUntil, now],
  );
  return rowCount ? secret : null;
}

/** The merchant, its row locked for the rest of the transaction (a read-modify-write of settings). */
export async function lockMerchant(q: Queryable, clientId: string): Promise<Merchant | null> {
  const { rows } = await q.query<MerchantRow>('SELECT * FROM merchants WHERE client_id = $1 FOR UPDATE', [clientId]);
  return rows[0] ? merchantFromRow(rows[0]) : null;
}
