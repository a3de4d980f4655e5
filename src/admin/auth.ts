// Operator authentication: `Authorization: Bearer <admin token>`. The token comes from
// KARIBCHE_ADMIN_TOKEN, or in sandbox mode from <data dir>/admin-token (see bootstrap.ts); only its
// SHA-256 is kept in the database, read per call so every process sees a regenerated token.
import type { FastifyRequest } from 'fastify';
import { ERRORS } from '../api/errors.ts';
import { problem } from '../api/problem.ts';
import type { Config } from '../config.ts';
import { hashSecret, secretMatches } from '../merchants/credentials.ts';
import type { Db } from '../store/db.ts';

export const ADMIN_TOKEN_HASH_KEY = 'admin_token_hash';

export function adminAuth(config: Config, db: Db) {
  const envHash = config.adminToken ? hashSecret(config.adminToken) : null;
  return async function authenticateAdmin(request: FastifyRequest): Promise<void> {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    let stored = envHash;
    if (!stored) {
      const { rows } = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [ADMIN_TOKEN_HASH_KEY]);
      stored = rows[0]?.value ?? null;
    }
    if (!m || !stored || !secretMatches(m[1]!, stored)) {
      throw problem(ERRORS.adminUnauthorized, { headers: { 'WWW-Authenticate': 'Bearer realm="karibche-admin"' } });
    }
  };
}
