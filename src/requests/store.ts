// SQL of the merchant request log: batched insert, prune to a bound per merchant, keyset listing.
import type { Queryable } from '../store/db.ts';

export interface LoggedRequest {
  clientId: string;
  createdAt: Date;
  method: string;
  path: string;
  status: number;
  systemCode: string | null;
  latencyMs: number;
  requestId: string;
  requestBody: string | null;
  responseBody: string | null;
}

export interface RequestRow {
  id: number;
  created_at: Date;
  method: string;
  path: string;
  status: number;
  system_code: string | null;
  latency_ms: number;
  request_id: string;
  request_body: string | null;
  response_body: string | null;
}

const COLS = 10;

/** One INSERT for the whole batch. */
export async function insertRequests(q: Queryable, batch: readonly LoggedRequest[]): Promise<void> {
  if (!batch.length) return;
  const params: unknown[] = [];
  const tuples = batch.map((r, i) => {
    params.push(
      r.clientId,
      r.createdAt,
      r.method,
      r.path,
      r.status,
      r.systemCode,
      r.latencyMs,
      r.requestId,
      r.requestBody,
      r.responseBody,
    );
    return `(${Array.from({ length: COLS }, (_, j) => `$${i * COLS + j + 1}`).join(',')})`;
  });
  await q.query(
    `INSERT INTO merchant_requests (client_id, created_at, method, path, status, system_code, latency_ms, request_id, request_body, response_body) VALUES ${tuples.join(',')}`,
    params,
  );
}

/** Keeps the newest `keep` rows of each merchant named. */
export async function pruneRequests(q: Queryable, clientIds: readonly string[], keep: number): Promise<void> {
  for (const clientId of clientIds) {
    await q.query(
      `DELETE FROM merchant_requests WHERE client_id = $1 AND id < (
         SELECT id FROM merchant_requests WHERE client_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
      [clientId, keep - 1],
    );
  }
}

/** Newest first; status as a class (400 to 499 for "4xx") or one code. */
export async function selectRequests(
  q: Queryable,
  clientId: string,
  status: { from: number; to: number } | null,
  beforeId: number | null,
  limit: number,
): Promise<RequestRow[]> {
  const { rows } = await q.query<RequestRow>(
    `SELECT id, created_at, method, path, status, system_code, latency_ms, request_id, request_body, response_body FROM merchant_requests
     WHERE client_id = $1 AND ($2::int IS NULL OR status BETWEEN $2 AND $3) AND ($4::bigint IS NULL OR id < $4)
     ORDER BY id DESC LIMIT $5`,
    [clientId, status?.from ?? null, status?.to ?? null, beforeId, limit],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}
