-- payment_events_final (migration 001) indexed the final events by id for the first callback
-- dispatcher, which read new final events from it. Deliveries have been queued by a trigger into
-- callback_deliveries since migration 003, and no statement reads the index any more (issue 25:
-- 0 scans through bench:steps' payments, refunds and charges; the only query on final events,
-- the conformance run's, reads a payment's events by (pay_id, seq)). Every final event still wrote
-- an entry into it, kept forever.
DROP INDEX payment_events_final;
