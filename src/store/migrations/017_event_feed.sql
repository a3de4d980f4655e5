-- The merchant-wide events feed (GET /v1/gateway/events and its server-sent-events stream) reads
-- payment_events, the transactional outbox. Each event keeps what the merchant needs to see of the
-- change at the time it happened, and a feed position that a reader can never skip over.
--
-- Why not the bigserial id as the cursor: ids are handed out when rows are inserted, but rows
-- become visible when their transactions commit, in another order. A reader that has seen id 11
-- while id 10's transaction is still open moves its cursor past 10 and never sees it.
--
-- The position is (feed_xid, id). feed_xid is the inserting transaction's id (xid8, never wraps),
-- raised to the position of the payment's previous event when that is higher, so a payment's
-- events stay in order in the feed even when a transaction that started earlier changed the
-- payment later. A reader returns only events whose feed_xid is below the xmin of its snapshot:
-- every transaction below xmin has ended, so no event can later appear below that point (an event
-- with feed_xid below xmin was written by a transaction that is over). The feed trails the oldest
-- open write transaction of the server, and nothing serialises the writers (no counter row to lock).
ALTER TABLE payment_events ADD COLUMN client_id text;
ALTER TABLE payment_events ADD COLUMN result_code text;
ALTER TABLE payment_events ADD COLUMN confirmed_amount bigint;
ALTER TABLE payment_events ADD COLUMN returned_amount bigint;
ALTER TABLE payment_events ADD COLUMN feed_xid xid8 NOT NULL DEFAULT '0';

-- Events written before this migration: their payment's merchant and current figures, at feed
-- position 0 (before everything new, in id order).
UPDATE payment_events e SET client_id = p.client_id, result_code = p.result_code,
  confirmed_amount = p.confirmed_amount, returned_amount = p.returned_amount
FROM payments p WHERE p.pay_id = e.pay_id;

CREATE INDEX payment_events_feed ON payment_events (client_id, feed_xid, id);

-- Whether any gateway process has an open event stream (one row, renewed by those processes).
-- NOTIFY serialises the commits of every notifying transaction on the server, so status changes
-- only notify while someone listens; the streams also re-read on a slow timer as a safety net.
CREATE TABLE event_stream_interest (
  only_row        boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  listened_until  timestamptz NOT NULL
);

CREATE FUNCTION karibche_event_feed_position() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.feed_xid := greatest(pg_current_xact_id(),
    (SELECT feed_xid FROM payment_events WHERE pay_id = NEW.pay_id AND seq = NEW.seq - 1));
  IF NEW.client_id IS NOT NULL AND EXISTS (SELECT 1 FROM event_stream_interest WHERE listened_until > now()) THEN
    PERFORM pg_notify('karibche_events', NEW.client_id);
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER payment_events_feed_position
BEFORE INSERT ON payment_events
FOR EACH ROW EXECUTE FUNCTION karibche_event_feed_position();
