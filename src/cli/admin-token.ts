// The operator's admin token: KARIBCHE_ADMIN_TOKEN, else the file the sandbox gateway writes on
// its first start (<KARIBCHE_DATA_DIR or ./data>/admin-token).
import fs from 'node:fs';
import path from 'node:path';
import { CliError } from './errors.ts';

export const dataDir = (env: NodeJS.ProcessEnv = process.env) => path.resolve(env.KARIBCHE_DATA_DIR || './data');

/** The admin token, or null when there is none here (a developer with merchant credentials only). */
export function findAdminToken(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.KARIBCHE_ADMIN_TOKEN) return env.KARIBCHE_ADMIN_TOKEN;
  try {
    return fs.readFileSync(path.join(dataDir(env), 'admin-token'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export function adminToken(): string {
  const token = findAdminToken();
  if (!token)
    throw new CliError(
      `no admin token: set KARIBCHE_ADMIN_TOKEN or start the sandbox gateway once (it writes ${path.join(dataDir(), 'admin-token')})`,
    );
  return token;
}
