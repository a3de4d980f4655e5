// SQL of the merchant's failed and undeliverable callbacks: listing (keyset on event id, index
// callback_deliveries_problems of migration 011) and the rows a bulk redelivery locks.
import type { Queryable } from '../store/db.ts';
import type { DeliveryRow } from './store.ts';

export const FAILED_DELIVERY_STATES = ['failed', 'undeliverable'] as const;
export type FailedDeliveryState = (typeof FAILED_DELIVERY_STATES)[number];

export interface FailedDelivery extends DeliveryRow {
  pay_id: string;
}

export async function selectFailedDeliveries(
  q: Queryable,
  clientId: string,
  states: readonly FailedDeliveryState[],
  beforeEventId: number | null,
  limit: number,
): Promise<FailedDelivery[]> {
  const { rows } = await q.query<FailedDelivery>(
    `SELECT d.*, e.status AS event_status FROM callback_deliveries d JOIN payment_events e ON e.id = d.event_id
     WHERE d.client_id = $1 AND d.status = ANY($2::text[]) AND ($3::bigint IS NULL OR d.event_id < $3)
     ORDER BY d.event_id DESC LIMIT $4`,
    [clientId, states, beforeEventId, limit],
  );
  return rows.map((r) => ({ ...r, event_id: Number(r.event_id) }));
}

/** Problem deliveries to redeliver, locked, with where their payment wants callbacks now. */
export async function lockFailedDeliveries(
  q: Queryable,
  clientId: string,
  by: { eventIds: readonly number[] } | { states: readonly FailedDeliveryState[] },
  limit: number,
): Promise<{ event_id: number; callback_url: string | null }[]> {
  const [cond, arg] =
    'eventIds' in by ? ['d.event_id = ANY($2::bigint[])', by.eventIds] : ['d.status = ANY($2::text[])', by.states];
  const { rows } = await q.query<{ event_id: number; callback_url: string | null }>(
    `SELECT d.event_id, p.callback_url FROM callback_deliveries d JOIN payments p ON p.pay_id = d.pay_id
     WHERE d.client_id = $1 AND d.status IN ('failed', 'undeliverable') AND ${cond}
     ORDER BY d.event_id LIMIT $3 FOR UPDATE OF d`,
    [clientId, arg, limit],
  );
  return rows.map((r) => ({ ...r, event_id: Number(r.event_id) }));
}
