// SQL for callback delivery: one function per operation. A claim is a lease in database time;
// the next attempt's time comes from karibche_callback_backoff() on the gateway clock.
import type { Queryable } from '../store/db.ts';

export interface Claimed {
  event_id: number;
  pay_id: string;
  client_id: string;
  seq: number;
  url: string;
  attempts: number;
  created_at: Date;
}

export const CALLBACK_CHANNEL = 'karibche_callbacks';

/** Days a callback keeps being retried before it is marked failed. */
export const RETRY_DAYS = 3;

/**
 * Claims due deliveries (and ones whose dispatcher died mid-delivery: lease expired). SKIP LOCKED
 * lets several dispatchers claim side by side; each claimed row is this dispatcher's until its
 * lease ends, so no attempt is ever sent twice at once.
 */
export async function claimDue(q: Queryable, now: Date, limit: number, leaseSeconds: number): Promise<Claimed[]> {
  const { rows } = await q.query<Claimed>(
    `WITH due AS (
       SELECT event_id FROM callback_deliveries
       WHERE (status = 'pending' AND next_attempt_at <= $1)
          OR (status = 'delivering' AND lease_until < clock_timestamp())
       ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     UPDATE callback_deliveries d
     SET status = 'delivering', attempts = d.attempts + 1, lease_until = clock_timestamp() + make_interval(secs => $3)
     FROM due WHERE d.event_id = due.event_id
     RETURNING d.event_id, d.pay_id, d.client_id, d.seq, d.url, d.attempts, d.created_at`,
    [now, limit, leaseSeconds],
    'claim_callbacks',
  );
  return rows;
}

export interface AttemptRecord {
  eventId: number;
  payId: string;
  attempt: number;
  url: string;
  startedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  excerpt: string | null;
  delivered: boolean;
}

/**
 * Logs the attempt and moves the delivery on — delivered, the next retry, or failed after 3 days —
 * in one statement (one commit). The attempt number guards against a stale dispatcher whose lease
 * ran out: its result is logged but moves nothing.
 */
export async function recordAttempt(q: Queryable, a: AttemptRecord, now: Date): Promise<string> {
  const { rows } = await q.query<{ status: string | null }>(
    `WITH log AS (
       INSERT INTO callback_attempts (event_id, pay_id, attempt, url, started_at, duration_ms, http_status, error, response_excerpt)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)),
     moved AS (
       UPDATE callback_deliveries SET
         status = CASE WHEN $10 THEN 'delivered'
                       WHEN $11::timestamptz + karibche_callback_backoff(attempts) > created_at + make_interval(days => ${RETRY_DAYS}) THEN 'failed'
                       ELSE 'pending' END,
         next_attempt_at = CASE WHEN $10 THEN next_attempt_at ELSE $11::timestamptz + karibche_callback_backoff(attempts) END,
         delivered_at = CASE WHEN $10 THEN $11::timestamptz ELSE delivered_at END,
         lease_until = NULL, last_status = $7, last_error = $12
       WHERE event_id = $1 AND attempts = $3 AND status = 'delivering'
       RETURNING status)
     SELECT (SELECT status FROM moved) AS status`,
    [a.eventId, a.payId, a.attempt, a.url, a.startedAt, a.durationMs, a.httpStatus, a.error, a.excerpt, a.delivered, now, a.delivered ? null : (a.error ?? `HTTP ${a.httpStatus}`)],
    'record_callback_attempt',
  );
  return rows[0]?.status ?? 'superseded';
}

export interface DeliveryRow {
  event_id: number;
  seq: number;
  url: string | null;
  status: string;
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  delivered_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  event_status: string;
}

export interface AttemptRow {
  event_id: number;
  attempt: number;
  url: string;
  started_at: Date;
  duration_ms: number;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export async function selectDeliveries(q: Queryable, payId: string): Promise<{ deliveries: DeliveryRow[]; attempts: AttemptRow[] }> {
  const deliveries = await q.query<DeliveryRow>(
    `SELECT d.*, e.status AS event_status FROM callback_deliveries d JOIN payment_events e ON e.id = d.event_id
     WHERE d.pay_id = $1 ORDER BY d.seq`,
    [payId],
  );
  const attempts = await q.query<AttemptRow>('SELECT * FROM callback_attempts WHERE pay_id = $1 ORDER BY id', [payId]);
  return { deliveries: deliveries.rows, attempts: attempts.rows };
}

/**
 * Sends the payment's latest final event again: due now, with a fresh retry window and the
 * target resolved again (the merchant may have fixed its URL). Null when there is none.
 */
export async function scheduleRedelivery(q: Queryable, payId: string, now: Date): Promise<{ event_id: number; status: string } | null> {
  const { rows } = await q.query<{ event_id: number; status: string }>(
    `UPDATE callback_deliveries d SET
       url = COALESCE(p.callback_url, m.default_callback_url),
       status = CASE WHEN COALESCE(p.callback_url, m.default_callback_url) IS NULL THEN 'undeliverable' ELSE 'pending' END,
       next_attempt_at = $2, created_at = $2, lease_until = NULL
     FROM payments p JOIN merchants m ON m.client_id = p.client_id
     WHERE p.pay_id = d.pay_id AND d.pay_id = $1 AND d.status <> 'delivering'
       AND d.seq = (SELECT max(seq) FROM callback_deliveries WHERE pay_id = $1)
     RETURNING d.event_id, d.status`,
    [payId, now],
  );
  return rows[0] ?? null;
}
