import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { dataDirToWrite } from './data-dir.ts';
import type { Db } from './db.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';

/** Opens the configured database: PostgreSQL when DATABASE_URL is set, else PGlite in the data dir. */
export async function openDatabase(config: Config, onError?: (err: Error) => void): Promise<Db> {
  if (config.databaseUrl) {
    return openPostgres(config.databaseUrl, {
      poolSize: config.dbPoolSize,
      queryTimeoutMs: config.dbQueryTimeoutMs,
      onError,
      listenUrl: config.databaseDirectUrl,
      statements: config.dbStatements,
    });
  }
  const dir = path.join(dataDirToWrite(config.dataDir), 'pglite');
  fs.mkdirSync(dir, { recursive: true });
  return openPglite(dir, { settings: config.pgliteSettings });
}
