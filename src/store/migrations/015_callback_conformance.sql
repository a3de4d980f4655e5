-- The callback conformance run (issue 14): real payments of the merchant, marked with the run
-- that made them, whose callbacks the run sends itself (in its own order, with its duplicates).
ALTER TABLE payments ADD COLUMN conformance_run text;

CREATE TABLE conformance_runs (
  run_id      text PRIMARY KEY,
  client_id   text NOT NULL,
  url         text NOT NULL,
  started_at  timestamptz NOT NULL,
  finished_at timestamptz,
  report      jsonb
);
CREATE INDEX conformance_runs_client ON conformance_runs (client_id, started_at DESC);

-- Every PaymentId a run sends (its payments and the unknown one), so that the merchant's fetches of
-- them are recognised by whichever gateway process serves them.
CREATE TABLE conformance_probes (
  pay_id    text PRIMARY KEY,
  run_id    text NOT NULL REFERENCES conformance_runs (run_id),
  client_id text NOT NULL
);

-- The merchant's get-payment calls for those ids (real time: they are compared with when the run
-- sent its callbacks).
CREATE TABLE conformance_fetches (
  id          bigserial PRIMARY KEY,
  run_id      text NOT NULL REFERENCES conformance_runs (run_id),
  pay_id      text NOT NULL,
  http_status integer NOT NULL,
  fetched_at  timestamptz NOT NULL
);
CREATE INDEX conformance_fetches_run ON conformance_fetches (run_id, pay_id);

-- A conformance payment's callbacks are delivered by its run, not by the dispatchers: its events
-- get a delivery row in the state 'conformance' (which no dispatcher claims); the run records its
-- attempts there and settles the row.
ALTER TABLE callback_deliveries DROP CONSTRAINT callback_deliveries_status_check;
ALTER TABLE callback_deliveries ADD CONSTRAINT callback_deliveries_status_check
  CHECK (status IN ('pending', 'delivering', 'delivered', 'failed', 'undeliverable', 'conformance'));

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
  IF target IS NOT NULL AND run IS NULL THEN
    PERFORM pg_notify('karibche_callbacks', NEW.pay_id);
  END IF;
  RETURN NULL;
END
$$;
