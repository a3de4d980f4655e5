// SQL of the callback conformance run (conformance.ts): its runs, the PaymentIds it sends, the
// merchant's fetches of them, and the run's own callback attempts on its payments' deliveries.
import type { AttemptRecord } from '../callbacks/store.ts';
import type { Queryable } from '../store/db.ts';

/** The merchantPaymentId prefix of conformance payments: a fetch of one is worth recording. */
export const CONFORMANCE_PREFIX = 'conformance-';

export async function insertRun(q: Queryable, runId: string, clientId: string, url: string, now: Date): Promise<void> {
  await q.query('INSERT INTO conformance_runs (run_id, client_id, url, started_at) VALUES ($1, $2, $3, $4)', [
    runId,
    clientId,
    url,
    now,
  ]);
}

export async function finishRun(q: Queryable, runId: string, report: unknown, now: Date): Promise<void> {
  await q.query('UPDATE conformance_runs SET finished_at = $2, report = $3 WHERE run_id = $1', [
    runId,
    now,
    JSON.stringify(report),
  ]);
}

export async function selectRun(
  q: Queryable,
  clientId: string,
  runId: string,
): Promise<{ report: unknown; finished_at: Date | null } | null> {
  const { rows } = await q.query<{ report: unknown; finished_at: Date | null }>(
    'SELECT report, finished_at FROM conformance_runs WHERE run_id = $1 AND client_id = $2',
    [runId, clientId],
  );
  const row = rows[0];
  if (!row) return null;
  return { ...row, report: typeof row.report === 'string' ? JSON.parse(row.report) : row.report };
}

/** Marks a payment as the run's (before its first status change, so its deliveries are the run's). */
export async function markPayment(q: Queryable, payId: string, runId: string): Promise<void> {
  await q.query('UPDATE payments SET conformance_run = $2 WHERE pay_id = $1', [payId, runId]);
}

export async function insertProbes(q: Queryable, runId: string, clientId: string, payIds: string[]): Promise<void> {
  await q.query('INSERT INTO conformance_probes (pay_id, run_id, client_id) SELECT unnest($1::text[]), $2, $3', [
    payIds,
    runId,
    clientId,
  ]);
}

/** Records the merchant's get-payment call when the id is one a run sent it (else nothing). */
export async function recordFetch(
  q: Queryable,
  clientId: string,
  payId: string,
  httpStatus: number,
  at: Date,
): Promise<void> {
  await q.query(
    'INSERT INTO conformance_fetches (run_id, pay_id, http_status, fetched_at) SELECT run_id, pay_id, $3, $4 FROM conformance_probes WHERE pay_id = $1 AND client_id = $2',
    [payId, clientId, httpStatus, at],
  );
}

/** The merchant's fetches of `payId` in this run since `since`. */
export async function countFetches(q: Queryable, runId: string, payId: string, since: Date): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM conformance_fetches WHERE run_id = $1 AND pay_id = $2 AND fetched_at >= $3',
    [runId, payId, since],
  );
  return rows[0]!.n;
}

/** The final events of a conformance payment, with their delivery rows (oldest first). */
export async function selectFinalEvents(
  q: Queryable,
  payId: string,
): Promise<{ id: number; seq: number; status: string }[]> {
  const { rows } = await q.query<{ id: string | number; seq: number; status: string }>(
    'SELECT id, seq, status FROM payment_events WHERE pay_id = $1 AND final ORDER BY seq',
    [payId],
  );
  return rows.map((r) => ({ id: Number(r.id), seq: r.seq, status: r.status }));
}

/** A send of the run: a dispatcher's attempt record but for the number and outcome, which follow from the row. */
export type RunAttempt = Omit<AttemptRecord, 'attempt' | 'delivered'>;

/**
 * Logs one of the run's sends of a payment event on its delivery (which stays in the state
 * 'conformance': the run, not a dispatcher, delivered it), so the merchant's callback list shows it.
 */
export async function recordRunAttempt(q: Queryable, a: RunAttempt): Promise<void> {
  const delivered = a.httpStatus !== null && a.httpStatus >= 200 && a.httpStatus < 300;
  await q.query(
    `WITH d AS (
       UPDATE callback_deliveries SET attempts = attempts + 1, last_status = $6, last_error = $9,
         delivered_at = CASE WHEN $10 THEN coalesce(delivered_at, $4) ELSE delivered_at END
       WHERE event_id = $1 AND status = 'conformance' RETURNING attempts)
     INSERT INTO callback_attempts (event_id, pay_id, attempt, url, started_at, duration_ms, http_status, error, response_excerpt)
     SELECT $1, $2, attempts, $3, $4, $5, $6, $7, $8 FROM d`,
    [
      a.eventId,
      a.payId,
      a.url,
      a.startedAt,
      a.durationMs,
      a.httpStatus,
      a.error,
      a.excerpt,
      delivered ? null : (a.error ?? `HTTP ${a.httpStatus}`),
      delivered,
    ],
  );
}
