// Reading the merchant request log: filters checked here so the API and the dashboard agree.
import { Violations } from '../errors/gateway-error.ts';
import type { Db } from '../store/db.ts';
import { selectRequests, type RequestRow } from './store.ts';

export const MAX_REQUESTS_PAGE = 100;

/** "2xx".."5xx" for a class, or one status code. */
export function parseStatusFilter(raw: string): { from: number; to: number } | null {
  const cls = /^([1-5])xx$/i.exec(raw);
  if (cls) return { from: Number(cls[1]) * 100, to: Number(cls[1]) * 100 + 99 };
  return /^[1-5]\d\d$/.test(raw) ? { from: Number(raw), to: Number(raw) } : null;
}

export async function listRequests(
  s: { db: Db },
  clientId: string,
  qs: { status?: string; limit?: string; cursor?: string },
): Promise<{ items: RequestRow[]; nextCursor: string | null }> {
  const v = new Violations();
  const status = qs.status ? parseStatusFilter(qs.status) : null;
  if (qs.status && !status) v.add('status', 'must be a status code such as 400 or a class such as 4xx');
  const limit = qs.limit ? Number(qs.limit) : 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_REQUESTS_PAGE)
    v.add('limit', `must be an integer from 1 to ${MAX_REQUESTS_PAGE}`);
  const before = qs.cursor && /^[1-9]\d{0,15}$/.test(qs.cursor) ? Number(qs.cursor) : null;
  if (qs.cursor && before === null) v.add('cursor', 'is not a cursor returned by this endpoint');
  v.throwIfAny();
  const rows = await selectRequests(s.db, clientId, status, before, limit + 1);
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? String(items[items.length - 1]!.id) : null };
}
