// Operator authentication: `Authorization: Bearer <admin token>`. The token comes from
// KARIBCHE_ADMIN_TOKEN, or in sandbox mode from <data dir>/admin-token (see bootstrap.ts); only its
// SHA-256 is kept in the database, re-read at most every few seconds so every process soon sees a
// regenerated token without a query on every operator call.
import type { FastifyRequest } from 'fastify';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { Config } from '../config.ts';
import { hashSecret, secretMatches } from '../merchants/credentials.ts';
import type { Db } from '../store/db.ts';
import { getSetting } from '../store/settings.ts';

export const ADMIN_TOKEN_HASH_KEY = 'admin_token_hash';

const STORED_HASH_TTL_MS = 5_000;

export function adminAuth(config: Config, db: Db) {
  const envHash = config.adminToken ? hashSecret(config.adminToken) : null;
  let cached: { hash: string | null; until: number } = { hash: null, until: 0 };
  const storedHash = async (): Promise<string | null> => {
    if (Date.now() < cached.until) return cached.hash;
    cached = { hash: await getSetting(db, ADMIN_TOKEN_HASH_KEY), until: Date.now() + STORED_HASH_TTL_MS };
    return cached.hash;
  };
  return async function authenticateAdmin(request: FastifyRequest): Promise<void> {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const stored = envHash ?? (await storedHash());
    if (!m || !stored || !secretMatches(m[1]!, stored)) {
      throw gatewayError(ERRORS.adminUnauthorized);
    }
  };
}
