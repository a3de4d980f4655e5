// The merchant's callbacks that did not arrive (Karibche extension): list failed and undeliverable
// ones across payments, and redeliver them in bulk — by callback id or every one in a state. Each
// goes to the URL resolved again (callbackTarget), as the single-payment redelivery does.
import { Violations } from '../errors/gateway-error.ts';
import type { UnitOfWork } from '../idempotency/unit-of-work.ts';
import type { Merchant } from '../merchants/merchant.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../store/db.ts';
import { callbackId } from './ids.ts';
import {
  FAILED_DELIVERY_STATES,
  lockFailedDeliveries,
  selectFailedDeliveries,
  type FailedDelivery,
  type FailedDeliveryState,
} from './failed-delivery-store.ts';
import { callbackTarget } from './addresses.ts';
import { rescheduleDelivery } from './store.ts';

export const MAX_LIST = 100;
/** One bulk call redelivers at most this many; `remaining` tells the merchant to call again. */
export const MAX_BULK = 500;

const CALLBACK_ID = /^evt_([1-9][0-9]{0,15})$/;
const parseCallbackId = (id: string) => {
  const m = CALLBACK_ID.exec(id);
  return m ? Number(m[1]) : null;
};

function parseStates(v: Violations, raw: unknown): FailedDeliveryState[] {
  if (raw === undefined || raw === '') return [...FAILED_DELIVERY_STATES];
  if ((FAILED_DELIVERY_STATES as readonly string[]).includes(String(raw))) return [raw as FailedDeliveryState];
  v.add('state', `must be one of ${FAILED_DELIVERY_STATES.join(', ')}`);
  return [];
}

export interface ProblemQuery {
  state?: string;
  limit?: string;
  cursor?: string;
}

export async function listFailedDeliveries(
  s: { db: Db },
  clientId: string,
  qs: ProblemQuery,
): Promise<{ items: FailedDelivery[]; nextCursor: string | null }> {
  const v = new Violations();
  const states = parseStates(v, qs.state);
  const limit = qs.limit === undefined || qs.limit === '' ? 20 : Number(qs.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST)
    v.add('limit', `must be an integer from 1 to ${MAX_LIST}`);
  const before = qs.cursor ? parseCallbackId(qs.cursor) : null;
  if (qs.cursor && before === null) v.add('cursor', 'is not a cursor returned by this endpoint');
  v.throwIfAny();
  const rows = await selectFailedDeliveries(s.db, clientId, states, before, limit + 1);
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? callbackId(items[items.length - 1]!.event_id) : null };
}

export interface BulkRedeliverBody {
  callbackIds?: string[];
  state?: string;
}

export interface BulkRedelivery {
  items: { callbackId: string; status: string }[];
  /** Ids asked for that are not failed or undeliverable callbacks of this merchant (left as they are). */
  skipped: string[];
}

/** Parses the body first so a bad one changes nothing; then one transaction reschedules them all. */
export async function redeliverFailedDeliveries(
  s: { db: Db; clock: Clock },
  merchant: Merchant,
  body: BulkRedeliverBody,
  uow: UnitOfWork<BulkRedelivery>,
): Promise<BulkRedelivery> {
  const v = new Violations();
  const ids = body.callbackIds;
  // Both or neither is refused: an empty body must not redeliver everything by accident.
  if ((ids === undefined) === (body.state === undefined))
    v.add('state', 'give either callbackIds or state (failed or undeliverable), not both');
  if (ids !== undefined) {
    if (ids.length === 0 || ids.length > MAX_BULK) v.add('callbackIds', `must list 1 to ${MAX_BULK} callback ids`);
    ids.forEach((id, i) => {
      if (parseCallbackId(id) === null) v.add(`callbackIds[${i}]`, 'is not a callback id (evt_…)');
    });
  }
  const states = ids === undefined && body.state !== undefined ? parseStates(v, body.state) : [];
  v.throwIfAny();
  return uow.finish(async (q) => {
    const by = ids ? { eventIds: ids.map((id) => parseCallbackId(id)!) } : { states };
    const rows = await lockFailedDeliveries(q, merchant.clientId, by, MAX_BULK);
    const now = s.clock.forMerchant(merchant.clientId).now();
    const items = [];
    for (const r of rows)
      items.push({
        callbackId: callbackId(r.event_id),
        status: await rescheduleDelivery(q, r.event_id, callbackTarget(r, merchant), now),
      });
    const done = new Set(items.map((i) => i.callbackId));
    return { items, skipped: (ids ?? []).filter((id) => !done.has(id)) };
  });
}
