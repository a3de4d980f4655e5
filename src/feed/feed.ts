// Reading the merchant events feed: the request's cursor and page size checked here, the page
// answered in feed order with the cursor to ask from next.
import { ERRORS } from '../errors/catalogue.ts';
import { Violations, invalidField } from '../errors/gateway-error.ts';
import type { Queryable } from '../store/db.ts';
import { FEED_START, formatPosition, parsePosition, type FeedPosition } from './position.ts';
import { selectFeed, selectFeedTail, type FeedRow } from './store.ts';

export type { FeedRow };

/** A live stream's next read: up to `limit` settled events after `from`, and whether newer ones are held back by an open transaction. */
export const readFeed = (q: Queryable, clientId: string, from: FeedPosition, limit: number) =>
  selectFeed(q, clientId, from, limit);

/** Where a live stream without a position starts: after the merchant's latest settled event (null: none yet). */
export const feedTail = (q: Queryable, clientId: string): Promise<FeedPosition | null> => selectFeedTail(q, clientId);

export const DEFAULT_EVENTS_PAGE = 100;
export const MAX_EVENTS_PAGE = 500;

const NOT_A_POSITION = 'is not an event id or cursor returned by this feed';

export interface FeedPage {
  items: FeedRow[];
  /** Pass back as `after`: the last event's id, or the cursor asked from when there was none. */
  nextCursor: string;
  /** More events are ready now (the page was full). */
  hasMore: boolean;
}

/** The position a client passed (an event id or nextCursor); a 400 that names `field` otherwise. */
export function positionFrom(raw: string | undefined, field: string): FeedPosition | undefined {
  if (raw === undefined || raw === '') return undefined;
  const p = parsePosition(raw);
  if (!p) throw invalidField(field, NOT_A_POSITION, ERRORS.eventCursorInvalid);
  return p;
}

export const positionOf = (r: Pick<FeedRow, 'feed_xid' | 'id'>): FeedPosition => ({ xid: r.feed_xid, id: r.id });

export async function listEvents(
  q: Queryable,
  clientId: string,
  qs: { after?: string; limit?: string },
): Promise<FeedPage> {
  const v = new Violations();
  const limit = qs.limit ? Number(qs.limit) : DEFAULT_EVENTS_PAGE;
  if (!/^\d{1,4}$/.test(qs.limit ?? '1') || limit < 1 || limit > MAX_EVENTS_PAGE)
    v.add('limit', `must be an integer from 1 to ${MAX_EVENTS_PAGE}`);
  const after = qs.after ? parsePosition(qs.after) : FEED_START;
  if (!after) v.add('after', NOT_A_POSITION, ERRORS.eventCursorInvalid);
  v.throwIfAny();
  const from = after as FeedPosition;
  const { rows } = await selectFeed(q, clientId, from, limit + 1);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: formatPosition(last ? positionOf(last) : from), hasMore: rows.length > limit };
}
