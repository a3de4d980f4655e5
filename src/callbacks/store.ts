// SQL for callback delivery: one function per operation. A claim is a lease in database time;
// the next attempt's time comes from karibche_callback_backoff() on the gateway clock — the
// payment's merchant clock (the global time passed in plus the merchant's own sandbox offset).
import type { Queryable } from '../store/db.ts';
import { MAX_MERCHANT_OFFSET, MERCHANT_OFFSET } from '../store/merchant-clock.ts';

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
 *
 * Each kind is read by an ordered scan of its own partial index, which stops at the limit or at
 * the first row not yet due (issue 25). Every delivery leaves an entry in both indexes that is
 * dead once it moves on (pending → delivering → delivered); a plain index scan marks the dead
 * entries it meets, so the next claim skips them, where the bitmap scans of one `OR` over both
 * indexes (the claim before) took every dead entry again at every claim until a vacuum: after 3,000
 * delivered callbacks an empty claim cost 163 µs of PostgreSQL's CPU instead of 45. The lease is
 * compared at the statement's time (stable, so an index bound) rather than clock_timestamp().
 */
export async function claimDue(q: Queryable, now: Date, limit: number, leaseSeconds: number): Promise<Claimed[]> {
  const { rows } = await q.query<Claimed>(
    `WITH pending AS (
       SELECT d.event_id, d.next_attempt_at FROM callback_deliveries d JOIN merchants m ON m.client_id = d.client_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= $1::timestamptz + ${MAX_MERCHANT_OFFSET} AND d.next_attempt_at <= $1::timestamptz + ${MERCHANT_OFFSET('m')}
       ORDER BY d.next_attempt_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED),
     expired AS (
       SELECT d.event_id, d.next_attempt_at FROM callback_deliveries d
       WHERE d.status = 'delivering' AND d.lease_until < statement_timestamp()
       ORDER BY d.lease_until LIMIT $2 FOR UPDATE OF d SKIP LOCKED),
     due AS (
       SELECT event_id FROM (SELECT * FROM pending UNION ALL SELECT * FROM expired) due
       ORDER BY next_attempt_at LIMIT $2)
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
 * Logs attempts and moves each delivery on — delivered, the next retry, or failed after 3 days —
 * in one statement (one commit) for the whole batch: under load the dispatcher records many
 * attempts at once. The attempt number guards against a stale dispatcher whose lease ran out: its
 * result is logged but moves nothing ('superseded'). The delivery keeps the URL the attempt went to
 * (the dispatcher resolves it again on every attempt, as redelivery does). Returns each delivery's
 * new status, in order.
 */
export async function recordAttempts(q: Queryable, batch: AttemptRecord[], now: Date): Promise<string[]> {
  const col = <T>(f: (a: AttemptRecord) => T) => batch.map(f);
  const { rows } = await q.query<{ i: number; status: string | null }>(
    `WITH r AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::timestamptz[], $6::int[], $7::int[], $8::text[], $9::text[], $10::boolean[])
         WITH ORDINALITY AS r(event_id, pay_id, attempt, url, started_at, duration_ms, http_status, error, excerpt, delivered, i)),
     log AS (
       INSERT INTO callback_attempts (event_id, pay_id, attempt, url, started_at, duration_ms, http_status, error, response_excerpt)
       SELECT event_id, pay_id, attempt, url, started_at, duration_ms, http_status, error, excerpt FROM r),
     moved AS (
       UPDATE callback_deliveries d SET
         status = CASE WHEN r.delivered THEN 'delivered'
                       WHEN ($11::timestamptz + ${MERCHANT_OFFSET('m')}) + karibche_callback_backoff(d.attempts) > d.created_at + make_interval(days => ${RETRY_DAYS}) THEN 'failed'
                       ELSE 'pending' END,
         next_attempt_at = CASE WHEN r.delivered THEN d.next_attempt_at ELSE ($11::timestamptz + ${MERCHANT_OFFSET('m')}) + karibche_callback_backoff(d.attempts) END,
         delivered_at = CASE WHEN r.delivered THEN ($11::timestamptz + ${MERCHANT_OFFSET('m')}) ELSE d.delivered_at END,
         lease_until = NULL, last_status = r.http_status, url = r.url,
         last_error = CASE WHEN r.delivered THEN NULL ELSE coalesce(r.error, 'HTTP ' || r.http_status) END
       FROM r, merchants m WHERE d.event_id = r.event_id AND m.client_id = d.client_id AND d.attempts = r.attempt AND d.status = 'delivering'
       RETURNING d.event_id, d.status)
     SELECT r.i::int AS i, m.status FROM r LEFT JOIN moved m ON m.event_id = r.event_id ORDER BY r.i`,
    [
      col((a) => a.eventId),
      col((a) => a.payId),
      col((a) => a.attempt),
      col((a) => a.url),
      col((a) => a.startedAt.toISOString()),
      col((a) => a.durationMs),
      col((a) => a.httpStatus),
      col((a) => a.error),
      col((a) => a.excerpt),
      col((a) => a.delivered),
      now,
    ],
    'record_callback_attempts',
  );
  return rows.map((r) => r.status ?? 'superseded');
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

export async function selectDeliveries(
  q: Queryable,
  payId: string,
): Promise<{ deliveries: DeliveryRow[]; attempts: AttemptRow[] }> {
  const deliveries = await q.query<DeliveryRow>(
    `SELECT d.*, e.status AS event_status FROM callback_deliveries d JOIN payment_events e ON e.id = d.event_id
     WHERE d.pay_id = $1 ORDER BY d.seq`,
    [payId],
  );
  const attempts = await q.query<AttemptRow>('SELECT * FROM callback_attempts WHERE pay_id = $1 ORDER BY id', [payId]);
  return { deliveries: deliveries.rows, attempts: attempts.rows };
}

/** The payment's latest callback, locked, unless it is being delivered right now. */
export async function lockLatestDelivery(q: Queryable, payId: string): Promise<{ event_id: number } | null> {
  const { rows } = await q.query<{ event_id: number }>(
    `SELECT event_id FROM callback_deliveries
     WHERE pay_id = $1 AND status <> 'delivering' AND seq = (SELECT max(seq) FROM callback_deliveries WHERE pay_id = $1)
     FOR UPDATE`,
    [payId],
  );
  return rows[0] ?? null;
}

/**
 * Makes a delivery due again now, to `url` (or undeliverable without one), with a fresh retry
 * window. Returns its new status.
 */
export async function rescheduleDelivery(
  q: Queryable,
  eventId: number,
  url: string | null,
  now: Date,
): Promise<string> {
  const { rows } = await q.query<{ status: string }>(
    `UPDATE callback_deliveries SET url = $2, status = CASE WHEN $2::text IS NULL THEN 'undeliverable' ELSE 'pending' END,
       next_attempt_at = $3, created_at = $3, lease_until = NULL
     WHERE event_id = $1 RETURNING status`,
    [eventId, url, now],
  );
  return rows[0]!.status;
}

/** The callback backlog for the metrics: every delivery not delivered yet, by state. */
export async function selectCallbackBacklog(
  q: Queryable,
  now: Date,
): Promise<{ pending: number; failing: number; failed: number; undeliverable: number; oldestSeconds: number }> {
  const { rows } = await q.query<{
    pending: number;
    failing: number;
    failed: number;
    undeliverable: number;
    oldest: Date | null;
  }>(
    `SELECT count(*) FILTER (WHERE d.status IN ('pending', 'delivering'))::int AS pending,
            count(*) FILTER (WHERE d.status IN ('pending', 'delivering') AND d.last_error IS NOT NULL)::int AS failing,
            count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
            count(*) FILTER (WHERE d.status = 'undeliverable')::int AS undeliverable,
            -- created_at is on the merchant's own sandbox clock: back to the global clock for the age.
            min(d.created_at - ${MERCHANT_OFFSET('m')}) FILTER (WHERE d.status IN ('pending', 'delivering')) AS oldest
     FROM callback_deliveries d JOIN merchants m ON m.client_id = d.client_id WHERE d.status <> 'delivered'`,
  );
  const r = rows[0]!;
  return {
    pending: r.pending,
    failing: r.failing,
    failed: r.failed,
    undeliverable: r.undeliverable,
    oldestSeconds: r.oldest ? Math.max(0, (now.getTime() - r.oldest.getTime()) / 1000) : 0,
  };
}
