// SQL of dashboard sessions: one function per database operation. Only the SHA-256 of a session id
// is stored; times are real time.
import type { Queryable } from '../store/db.ts';

export interface SessionRow {
  id_hash: string;
  user_id: number;
  client_id: string;
  email: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export async function insertSession(
  q: Queryable,
  idHash: string,
  userId: number,
  now: Date,
  expiresAt: Date,
): Promise<void> {
  await q.query(
    'INSERT INTO dashboard_sessions (id_hash, user_id, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $3, $4)',
    [idHash, userId, now, expiresAt],
  );
}

/** The session with its user's email and merchant. */
export async function selectSession(q: Queryable, idHash: string): Promise<SessionRow | null> {
  const { rows } = await q.query<SessionRow>(
    `SELECT s.id_hash, s.user_id, u.client_id, u.email, s.created_at, s.last_seen_at, s.expires_at
     FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id WHERE s.id_hash = $1`,
    [idHash],
  );
  return rows[0] ? { ...rows[0], user_id: Number(rows[0].user_id) } : null;
}

export async function touchSession(q: Queryable, idHash: string, now: Date): Promise<void> {
  await q.query('UPDATE dashboard_sessions SET last_seen_at = $2 WHERE id_hash = $1 AND last_seen_at < $2', [
    idHash,
    now,
  ]);
}

export async function deleteSession(q: Queryable, idHash: string): Promise<void> {
  await q.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [idHash]);
}

/** Drops sessions past their absolute expiry or idle since before `idleBefore`. */
export async function deleteEndedSessions(q: Queryable, now: Date, idleBefore: Date): Promise<number> {
  const { rowCount } = await q.query('DELETE FROM dashboard_sessions WHERE expires_at <= $1 OR last_seen_at <= $2', [
    now,
    idleBefore,
  ]);
  return rowCount;
}
