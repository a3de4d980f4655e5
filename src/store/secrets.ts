// Installation-wide random secrets, created by the first process that needs one and shared by all
// through the settings table.
import { randomBytes } from 'node:crypto';
import type { Db } from './db.ts';

export async function sharedSecret(db: Db, key: string): Promise<Buffer> {
  await db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
    key,
    randomBytes(32).toString('base64url'),
  ]);
  const { rows } = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
  return Buffer.from(rows[0]!.value, 'base64url');
}
