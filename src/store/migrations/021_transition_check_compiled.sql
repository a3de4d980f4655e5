-- The declared-transition check without a query (issue 25). karibche_check_transition (migration
-- 006) looked each status change up in payment_transitions: a query per status change, two per
-- paid payment. Measured with pgbench on the pay's two status changes (one client, alternating
-- rounds, PostgreSQL's CPU per pay): the lookup is ~35–40 µs of ~550, and a list the function
-- holds as a constant costs next to nothing (PL/pgSQL evaluates it without the executor).
--
-- payment_transitions stays the one declaration in the database (src/payments/state-machine.ts
-- declares the same, a test keeps the two equal): the function is rebuilt from the table now,
-- and again by a trigger whenever a statement changes the table, in the same transaction — so a
-- migration that declares a transition needs nothing more, and a rolled-back change leaves the
-- check as it was.
CREATE FUNCTION karibche_compile_transition_check() RETURNS void
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
      -- Compiled from payment_transitions by karibche_compile_transition_check (migration 021).
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

CREATE FUNCTION karibche_recompile_transition_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM karibche_compile_transition_check();
  RETURN NULL;
END
$$;

CREATE TRIGGER payment_transitions_compiled
AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON payment_transitions
FOR EACH STATEMENT EXECUTE FUNCTION karibche_recompile_transition_check();

SELECT karibche_compile_transition_check();
