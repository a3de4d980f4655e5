-- One state machine, enforced by the database (src/payments/state-machine.ts declares the same
-- table; a test keeps the two equal). A payment's status can only be one of the ten statuses, it
-- can only move along a declared transition, and a status change must append its event in the
-- same transaction (the transactional outbox), whatever code path issues the UPDATE.

CREATE TABLE payment_transitions (
  from_status text NOT NULL,
  to_status   text NOT NULL,
  PRIMARY KEY (from_status, to_status)
);
INSERT INTO payment_transitions (from_status, to_status) VALUES
  ('Created', 'Processing'),
  ('Created', 'Expired'),
  ('Processing', 'Succeeded'),
  ('Processing', 'WaitingConfirm'),
  ('Processing', 'Failed'),
  ('Processing', 'Created'),
  ('WaitingConfirm', 'PaymentCompletionProcessing'),
  ('WaitingConfirm', 'CancelPaymentProcessing'),
  ('WaitingConfirm', 'Returned'),
  ('PaymentCompletionProcessing', 'Succeeded'),
  ('PaymentCompletionProcessing', 'WaitingConfirm'),
  ('CancelPaymentProcessing', 'Returned'),
  ('CancelPaymentProcessing', 'PartialReturned'),
  ('CancelPaymentProcessing', 'Succeeded'),
  ('CancelPaymentProcessing', 'WaitingConfirm'),
  ('Succeeded', 'CancelPaymentProcessing'),
  ('PartialReturned', 'CancelPaymentProcessing');

ALTER TABLE payments ADD CONSTRAINT payments_status_known CHECK (status IN (
  'Created', 'Processing', 'Succeeded', 'Failed', 'Expired', 'WaitingConfirm',
  'PaymentCompletionProcessing', 'CancelPaymentProcessing', 'Returned', 'PartialReturned'));
ALTER TABLE payment_events ADD CONSTRAINT payment_events_status_known CHECK (status IN (
  'Created', 'Processing', 'Succeeded', 'Failed', 'Expired', 'WaitingConfirm',
  'PaymentCompletionProcessing', 'CancelPaymentProcessing', 'Returned', 'PartialReturned'));

-- Before the row changes: the move must be declared and must advance the event sequence by one.
CREATE FUNCTION karibche_check_transition() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM payment_transitions WHERE from_status = OLD.status AND to_status = NEW.status) THEN
    RAISE EXCEPTION 'undeclared payment transition % -> % (%)', OLD.status, NEW.status, OLD.pay_id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.event_seq <> OLD.event_seq + 1 THEN
    RAISE EXCEPTION 'a status change of % must advance its event sequence by one', OLD.pay_id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER payments_transition_declared
BEFORE UPDATE OF status ON payments
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION karibche_check_transition();

-- At commit: the event of the new status exists (the same statement or transaction wrote it).
CREATE FUNCTION karibche_check_event_written() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM payment_events WHERE pay_id = NEW.pay_id AND seq = NEW.event_seq AND status = NEW.status) THEN
    RAISE EXCEPTION 'status change of % to % has no event %', NEW.pay_id, NEW.status, NEW.event_seq USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER payments_event_written
AFTER UPDATE OF status ON payments
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION karibche_check_event_written();

-- confirmedAmount is a number as the bank gives it: 0 until money is captured, the amount once a
-- purchase is approved, the completed amount after a completion.
UPDATE payments SET confirmed_amount = CASE WHEN paid_at IS NOT NULL AND NOT pre_auth THEN amount ELSE 0 END
WHERE confirmed_amount IS NULL;
ALTER TABLE payments ALTER COLUMN confirmed_amount SET DEFAULT 0;
ALTER TABLE payments ALTER COLUMN confirmed_amount SET NOT NULL;

-- Callback addresses are matched as parsed URLs (src/callbacks/addresses.ts), port included. The
-- sandbox used to register the loopback hosts as string prefixes meant for any local port; they
-- now say so explicitly.
UPDATE merchants SET callback_url_prefixes = ARRAY(
  SELECT CASE WHEN p IN ('http://127.0.0.1', 'http://localhost') THEN p || ':*' ELSE p END FROM unnest(callback_url_prefixes) AS p)
WHERE callback_url_prefixes && ARRAY['http://127.0.0.1', 'http://localhost'];
