-- The value checks of the hot tables as domains (issue 25). PostgreSQL builds a table's CHECK
-- constraints anew for every statement that inserts or updates a row of it — each parsed from its
-- stored text, planned and compiled (ExecRelCheck) — and checks them all on every UPDATE, whatever
-- the columns changed. A status change updated the payment (two checks) and wrote its event (one);
-- a callback's claim and record updated its delivery (one each); a refund wrote its operation
-- (three). In a system-wide profile of the pay step, that rebuilding was 7 % of PostgreSQL's CPU.
-- A domain's check is parsed and planned once per connection (the type cache) and runs only where
-- a value is assigned to a column of that type; the values allowed are the same as before.
--
-- The same for the conditions of the payments' status triggers: a trigger's WHEN is parsed and
-- planned again by every statement that fires it (2–3 % of the pay's and the refund's profile).
-- On a status change two of them are always true: their functions now return at once when the
-- status did not change, which is what the condition did. The daily volume's condition is false
-- for nearly every change: it keeps only its first, short part (a payment counted against a daily
-- limit, the bank profile's), and its function checks the rest.
--
-- Each domain is made without its check and the columns take it (a change of type that keeps the
-- bytes: no table rewritten, the indexes kept but for the partial ones whose condition names a
-- status, rebuilt, which hold only the rows in those statuses), then the check is added, which
-- reads the existing values once: 0.9 s for 200,000 payments with 800,000 events on PostgreSQL 15,
-- the tables locked meanwhile. PostgreSQL refuses to change the type of a column that a trigger names (WHEN, UPDATE
-- OF): the payments' three status triggers are dropped and made again.
CREATE DOMAIN payment_status AS text;
CREATE DOMAIN payment_amount AS bigint;
CREATE DOMAIN delivery_status AS text;
CREATE DOMAIN operation_kind AS text;
CREATE DOMAIN operation_status AS text;
CREATE DOMAIN operation_amount AS bigint;
CREATE DOMAIN sim_authorisation_status AS text;

DROP TRIGGER payments_transition_declared ON payments;
DROP TRIGGER payments_event_written ON payments;
DROP TRIGGER payments_release_daily_volume ON payments;

ALTER TABLE payments DROP CONSTRAINT payments_status_known, DROP CONSTRAINT payments_amount_check,
  ALTER COLUMN status TYPE payment_status, ALTER COLUMN amount TYPE payment_amount;
ALTER TABLE payment_events DROP CONSTRAINT payment_events_status_known, ALTER COLUMN status TYPE payment_status;
ALTER TABLE callback_deliveries DROP CONSTRAINT callback_deliveries_status_check, ALTER COLUMN status TYPE delivery_status;
ALTER TABLE payment_operations DROP CONSTRAINT payment_operations_kind_check,
  DROP CONSTRAINT payment_operations_status_check, DROP CONSTRAINT payment_operations_amount_check,
  ALTER COLUMN kind TYPE operation_kind, ALTER COLUMN status TYPE operation_status, ALTER COLUMN amount TYPE operation_amount;
ALTER TABLE sim_authorisations DROP CONSTRAINT sim_authorisations_status_check,
  ALTER COLUMN status TYPE sim_authorisation_status;

ALTER DOMAIN payment_status ADD CONSTRAINT payment_status_known CHECK (VALUE IN (
  'Created', 'Processing', 'Succeeded', 'Failed', 'Expired', 'WaitingConfirm',
  'PaymentCompletionProcessing', 'CancelPaymentProcessing', 'Returned', 'PartialReturned'));
ALTER DOMAIN payment_amount ADD CONSTRAINT payment_amount_not_negative CHECK (VALUE >= 0);
ALTER DOMAIN delivery_status ADD CONSTRAINT delivery_status_known CHECK (VALUE IN (
  'pending', 'delivering', 'delivered', 'failed', 'undeliverable', 'conformance'));
ALTER DOMAIN operation_kind ADD CONSTRAINT operation_kind_known CHECK (VALUE IN ('refund', 'void', 'capture'));
ALTER DOMAIN operation_status ADD CONSTRAINT operation_status_known CHECK (VALUE IN ('processing', 'done', 'refused'));
ALTER DOMAIN operation_amount ADD CONSTRAINT operation_amount_positive CHECK (VALUE > 0);
ALTER DOMAIN sim_authorisation_status ADD CONSTRAINT sim_authorisation_status_known CHECK (VALUE IN (
  'challenge', 'no_answer', 'delayed', 'approved', 'declined'));

-- karibche_check_transition is compiled from payment_transitions (migration 021): its compiler
-- now writes the unchanged status's early return first.
CREATE OR REPLACE FUNCTION karibche_compile_transition_check() RETURNS void
LANGUAGE plpgsql AS $compile$
DECLARE
  declared text[];
BEGIN
  SELECT coalesce(array_agg(from_status || ' -> ' || to_status ORDER BY from_status, to_status), '{}')
    INTO declared FROM payment_transitions;
  EXECUTE format($body$
    CREATE OR REPLACE FUNCTION karibche_check_transition() RETURNS trigger
    LANGUAGE plpgsql AS $check$
    BEGIN
      -- Compiled from payment_transitions by karibche_compile_transition_check (migrations 021, 025).
      IF OLD.status IS NOT DISTINCT FROM NEW.status THEN
        RETURN NEW;
      END IF;
      IF NOT (OLD.status || ' -> ' || NEW.status = ANY (%L::text[])) THEN
        RAISE EXCEPTION 'undeclared payment transition %% -> %% (%%)', OLD.status, NEW.status, OLD.pay_id USING ERRCODE = 'check_violation';
      END IF;
      IF NEW.event_seq <> OLD.event_seq + 1 THEN
        RAISE EXCEPTION 'a status change of %% must advance its event sequence by one', OLD.pay_id USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END
    $check$$body$, declared);
END
$compile$;
SELECT karibche_compile_transition_check();

CREATE OR REPLACE FUNCTION karibche_check_event_written() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status IS NOT DISTINCT FROM NEW.status THEN
    RETURN NULL;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM payment_events WHERE pay_id = NEW.pay_id AND seq = NEW.event_seq AND status = NEW.status) THEN
    RAISE EXCEPTION 'status change of % to % has no event %', NEW.pay_id, NEW.status, NEW.event_seq USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER payments_transition_declared
BEFORE UPDATE OF status ON payments
FOR EACH ROW EXECUTE FUNCTION karibche_check_transition();

CREATE CONSTRAINT TRIGGER payments_event_written
AFTER UPDATE OF status ON payments
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION karibche_check_event_written();

CREATE OR REPLACE FUNCTION karibche_release_daily_volume() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status IS DISTINCT FROM NEW.status AND NEW.status IN ('Failed', 'Expired') THEN
    UPDATE merchant_daily_volume SET total = total - NEW.amount
    WHERE client_id = NEW.client_id AND business_day = NEW.limit_day;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER payments_release_daily_volume
AFTER UPDATE OF status ON payments
FOR EACH ROW WHEN (NEW.limit_day IS NOT NULL)
EXECUTE FUNCTION karibche_release_daily_volume();
