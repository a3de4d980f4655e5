// SQL for the settings table: installation-wide values by key (the admin token's hash, shared
// secrets, the sandbox clock), shared by every gateway process.
import type { Queryable } from './db.ts';

export async function getSetting(q: Queryable, key: string): Promise<string | null> {
  const { rows } = await q.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
  return rows[0]?.value ?? null;
}

export async function putSetting(q: Queryable, key: string, value: string): Promise<void> {
  await q.query(
    'INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value',
    [key, value],
  );
}
