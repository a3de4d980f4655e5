// SQL for the access tokens' signing keys (tokens.ts), shared by every gateway process.
import type { Queryable } from '../store/db.ts';

export interface SigningKeyRow {
  kid: string;
  secret: string;
  created_at: Date;
}

/** Adds a key; with `ifFirst`, only when no key of that kid exists (the first process to start creates it). */
export async function insertSigningKey(
  q: Queryable,
  kid: string,
  secret: string,
  now: Date,
  ifFirst = false,
): Promise<void> {
  await q.query(
    `INSERT INTO signing_keys (kid, secret, created_at) VALUES ($1, $2, $3)${ifFirst ? ' ON CONFLICT DO NOTHING' : ''}`,
    [kid, secret, now],
  );
}

/** The keys not retired, oldest first: the last one signs. */
export async function selectActiveSigningKeys(q: Queryable): Promise<SigningKeyRow[]> {
  const { rows } = await q.query<SigningKeyRow>(
    'SELECT kid, secret, created_at FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at, kid',
  );
  return rows;
}
