-- Callback delivery (issue 4). Every final payment event gets one delivery row, written by a
-- trigger in the same transaction as the event (so every path that changes a status is covered),
-- with a notification that wakes the dispatchers on commit.

CREATE TABLE callback_deliveries (
  event_id        bigint PRIMARY KEY REFERENCES payment_events (id),
  pay_id          text NOT NULL,
  client_id       text NOT NULL,
  seq             integer NOT NULL,
  -- Resolved when the event happens: the payment's callbackUrl, else the merchant's default.
  url             text,
  status          text NOT NULL CHECK (status IN ('pending', 'delivering', 'delivered', 'failed', 'undeliverable')),
  attempts        integer NOT NULL DEFAULT 0,
  -- On the gateway clock, so advancing the sandbox clock makes retries due.
  next_attempt_at timestamptz NOT NULL,
  -- A dispatcher's claim, on the database's own clock (process liveness, not business time).
  lease_until     timestamptz,
  last_status     integer,
  last_error      text,
  created_at      timestamptz NOT NULL,
  delivered_at    timestamptz
);
CREATE INDEX callback_deliveries_due ON callback_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX callback_deliveries_leased ON callback_deliveries (lease_until) WHERE status = 'delivering';
CREATE INDEX callback_deliveries_pay ON callback_deliveries (pay_id);

CREATE TABLE callback_attempts (
  id               bigserial PRIMARY KEY,
  event_id         bigint NOT NULL REFERENCES callback_deliveries (event_id),
  pay_id           text NOT NULL,
  attempt          integer NOT NULL,
  url              text NOT NULL,
  started_at       timestamptz NOT NULL,
  duration_ms      integer NOT NULL,
  http_status      integer,
  error            text,
  -- The first 1 KiB of the merchant's answer.
  response_excerpt text
);
CREATE INDEX callback_attempts_pay ON callback_attempts (pay_id, id);

-- The retry schedule: after attempt n wait 1 m, 5 m, 15 m, 30 m, 1 h, 2 h, 4 h, 8 h, then every 8 h.
CREATE FUNCTION karibche_callback_backoff(attempts integer) RETURNS interval
LANGUAGE sql IMMUTABLE AS $$
  SELECT make_interval(secs => COALESCE((ARRAY[60, 300, 900, 1800, 3600, 7200, 14400, 28800])[attempts], 28800))
$$;

CREATE FUNCTION karibche_enqueue_callback() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  target text;
  merchant text;
BEGIN
  SELECT COALESCE(p.callback_url, m.default_callback_url), p.client_id INTO target, merchant
  FROM payments p JOIN merchants m ON m.client_id = p.client_id
  WHERE p.pay_id = NEW.pay_id;
  INSERT INTO callback_deliveries (event_id, pay_id, client_id, seq, url, status, next_attempt_at, created_at)
  VALUES (NEW.id, NEW.pay_id, merchant, NEW.seq, target,
          CASE WHEN target IS NULL THEN 'undeliverable' ELSE 'pending' END, NEW.created_at, NEW.created_at);
  IF target IS NOT NULL THEN
    PERFORM pg_notify('karibche_callbacks', NEW.pay_id);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER payment_events_enqueue_callback
AFTER INSERT ON payment_events
FOR EACH ROW WHEN (NEW.final)
EXECUTE FUNCTION karibche_enqueue_callback();
