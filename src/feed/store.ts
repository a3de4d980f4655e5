// SQL of the merchant events feed over payment_events (the transactional outbox). Only events whose
// feed position lies below the snapshot's xmin are returned: the transactions that could still add
// an event below that point have all ended, so a cursor that moves past an event never skips one.
import type { Queryable } from '../store/db.ts';
import type { FeedPosition } from './position.ts';

export interface FeedRow {
  id: number;
  feed_xid: string;
  pay_id: string;
  seq: number;
  status: string;
  previous_status: string;
  final: boolean;
  result_code: string | null;
  confirmed_amount: number | null;
  returned_amount: number | null;
  created_at: Date;
  amount: number;
  currency: string;
  merchant_payment_id: string | null;
  /** Written by a transaction below the snapshot's xmin: no earlier event can still appear. */
  settled: boolean;
}

/**
 * Up to `limit` settled events after `after`, in feed order, and whether committed events (or
 * events of transactions still open) wait beyond them for older transactions to end.
 */
export async function selectFeed(
  q: Queryable,
  clientId: string,
  after: FeedPosition,
  limit: number,
): Promise<{ rows: FeedRow[]; held: boolean }> {
  const { rows } = await q.query<FeedRow>(
    `SELECT e.id, e.feed_xid::text AS feed_xid, e.pay_id, e.seq, e.status, COALESCE(prev.status, 'Created') AS previous_status,
            e.final, e.result_code, e.confirmed_amount, e.returned_amount, e.created_at, p.amount, p.currency, p.merchant_payment_id,
            e.feed_xid < pg_snapshot_xmin(pg_current_snapshot()) AS settled
     FROM payment_events e
     JOIN payments p ON p.pay_id = e.pay_id
     LEFT JOIN payment_events prev ON prev.pay_id = e.pay_id AND prev.seq = e.seq - 1
     WHERE e.client_id = $1 AND (e.feed_xid, e.id) > ($2::xid8, $3::bigint)
     ORDER BY e.feed_xid, e.id
     LIMIT $4`,
    [clientId, after.xid, after.id, limit],
    'select_event_feed',
  );
  // Unsettled rows sort after every settled one (their feed_xid is at or above xmin).
  const settled = rows.filter((r) => r.settled);
  return { rows: settled, held: settled.length < rows.length };
}

/** The position of the merchant's latest settled event: where a live stream starts. */
export async function selectFeedTail(q: Queryable, clientId: string): Promise<FeedPosition | null> {
  const { rows } = await q.query<{ feed_xid: string; id: number }>(
    `SELECT feed_xid::text AS feed_xid, id FROM payment_events
     WHERE client_id = $1 AND feed_xid < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY feed_xid DESC, id DESC LIMIT 1`,
    [clientId],
  );
  return rows[0] ? { xid: rows[0].feed_xid, id: rows[0].id } : null;
}

/** Status changes notify the event streams until `seconds` from now (see event_stream_interest). */
export async function renewStreamInterest(q: Queryable, seconds: number): Promise<void> {
  await q.query(
    `INSERT INTO event_stream_interest (listened_until) VALUES (now() + make_interval(secs => $1))
     ON CONFLICT (only_row) DO UPDATE SET listened_until = greatest(event_stream_interest.listened_until, EXCLUDED.listened_until)`,
    [seconds],
  );
}

/** The notification channel of status changes; the payload is the merchant's client id. */
export const EVENTS_CHANNEL = 'karibche_events';
