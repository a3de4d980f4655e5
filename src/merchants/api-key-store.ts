// SQL of a merchant's API keys. A key's public id is derived from its stored digest (never from the
// key itself), so listings and revocation need no extra column.
import type { Queryable } from '../store/db.ts';

export interface ApiKeyInfo {
  id: string;
  prefix: string;
  createdAt: string;
}

const ID_HEX = 16;
export const apiKeyId = (keyHash: string) => `ak_${keyHash.slice(0, ID_HEX)}`;
const hashPrefix = (id: string) => (/^ak_[0-9a-f]{16}$/.test(id) ? id.slice(3) : null);

export async function selectActiveApiKeys(q: Queryable, clientId: string): Promise<ApiKeyInfo[]> {
  const { rows } = await q.query<{ key_hash: string; prefix: string; created_at: Date }>(
    'SELECT key_hash, prefix, created_at FROM api_keys WHERE client_id = $1 AND revoked_at IS NULL ORDER BY created_at, key_hash',
    [clientId],
  );
  return rows.map((r) => ({ id: apiKeyId(r.key_hash), prefix: r.prefix, createdAt: r.created_at.toISOString() }));
}

/**
 * Revokes the key unless it is the merchant's last active one, in one statement so two concurrent
 * revocations cannot leave the merchant with none. 'last' when refused, 'missing' when no such key.
 */
export async function revokeApiKey(
  q: Queryable,
  clientId: string,
  id: string,
  now: Date,
): Promise<'revoked' | 'last' | 'missing'> {
  const prefix = hashPrefix(id);
  if (!prefix) return 'missing';
  const { rows } = await q.query<{ revoked: number; active: number; matched: number }>(
    `WITH mine AS (SELECT key_hash FROM api_keys WHERE client_id = $1 AND revoked_at IS NULL FOR UPDATE),
          target AS (SELECT key_hash FROM mine WHERE substr(key_hash, 1, ${ID_HEX}) = $2),
          done AS (UPDATE api_keys SET revoked_at = $3 WHERE key_hash IN (SELECT key_hash FROM target)
                     AND (SELECT count(*) FROM mine) > 1 RETURNING 1)
     SELECT (SELECT count(*) FROM done)::int AS revoked, (SELECT count(*) FROM mine)::int AS active, (SELECT count(*) FROM target)::int AS matched`,
    [clientId, prefix, now],
  );
  const r = rows[0]!;
  if (r.revoked > 0) return 'revoked';
  return r.matched > 0 ? 'last' : 'missing';
}
