// An event's place in a merchant's feed, "<feed_xid>-<id>" (migration 017 says why it takes both).
// Clients treat it as opaque: they pass back an event's id or a page's nextCursor unchanged.

export interface FeedPosition {
  /** The feed transaction id (xid8), kept as decimal text: it may exceed 2^53. */
  xid: string;
  id: number;
}

/** Before every event. */
export const FEED_START: FeedPosition = { xid: '0', id: 0 };

const XID8_MAX = 2n ** 64n - 1n;
const POSITION = /^(\d{1,20})-(\d{1,15})$/;

export const formatPosition = (p: FeedPosition): string => `${p.xid}-${p.id}`;

/** The position in `raw`, or null when it is not one this feed could have returned. */
export function parsePosition(raw: string): FeedPosition | null {
  const m = POSITION.exec(raw);
  if (!m || BigInt(m[1]!) > XID8_MAX) return null;
  return { xid: BigInt(m[1]!).toString(), id: Number(m[2]!) };
}
