-- A final event's delivery no longer sends a NOTIFY from the trigger (issue 25). NOTIFY takes a
-- database-wide lock from before the commit until after its WAL flush, so every transaction that
-- made a payment final waited for the previous one's fsync: under the lifecycle bench "Lock:object"
-- was PostgreSQL's most frequent wait and paid payments stopped near 300/s. The process that
-- commits the status change now wakes its own dispatcher after the commit (Queryable.notifyOnCommit
-- in moveStatus); the other processes' dispatchers find the row at their next poll.
CREATE OR REPLACE FUNCTION karibche_enqueue_callback() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  target text;
  merchant text;
  run text;
BEGIN
  SELECT COALESCE(p.callback_url, m.default_callback_url), p.client_id, p.conformance_run INTO target, merchant, run
  FROM payments p JOIN merchants m ON m.client_id = p.client_id
  WHERE p.pay_id = NEW.pay_id;
  INSERT INTO callback_deliveries (event_id, pay_id, client_id, seq, url, status, next_attempt_at, created_at)
  VALUES (NEW.id, NEW.pay_id, merchant, NEW.seq, target,
          CASE WHEN run IS NOT NULL THEN 'conformance' WHEN target IS NULL THEN 'undeliverable' ELSE 'pending' END,
          NEW.created_at, NEW.created_at);
  RETURN NULL;
END
$$;
