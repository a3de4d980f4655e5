// SQL of the merchants' dashboard users: one function per database operation.
import type { Queryable } from '../store/db.ts';

export interface UserRow {
  id: number;
  client_id: string;
  email: string;
  password_hash: string;
  created_at: Date;
  updated_at: Date;
}

/** The new user, or null when the email is taken (by any merchant). */
export async function insertUser(
  q: Queryable,
  clientId: string,
  email: string,
  passwordHash: string,
  now: Date,
): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>(
    `INSERT INTO dashboard_users (client_id, email, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (email) DO NOTHING RETURNING *`,
    [clientId, email, passwordHash, now],
  );
  return rows[0] ? { ...rows[0], id: Number(rows[0].id) } : null;
}

export async function selectUserByEmail(q: Queryable, email: string): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>('SELECT * FROM dashboard_users WHERE email = $1', [email]);
  return rows[0] ? { ...rows[0], id: Number(rows[0].id) } : null;
}

/**
 * Sets the password of the merchant's user with this email, creating the user if there is none;
 * false when the email belongs to another merchant's user (left alone).
 */
export async function upsertUserPassword(
  q: Queryable,
  clientId: string,
  email: string,
  passwordHash: string,
  now: Date,
): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO dashboard_users (client_id, email, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (email) DO UPDATE SET password_hash = EXCLUDED.password_hash, updated_at = EXCLUDED.updated_at
     WHERE dashboard_users.client_id = EXCLUDED.client_id`,
    [clientId, email, passwordHash, now],
  );
  return rowCount > 0;
}
