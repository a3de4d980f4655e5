-- Idempotency keys as an explicit unit of work (src/idempotency/): a key records how far its request
-- got (its recovery point), which process owns it now (owner + locked_until, in real time: process
-- liveness, not business time), the domain result it answered (replayed on a retry), and the payment
-- it created or operates on.

ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_client_id_fkey;
ALTER TABLE idempotency_keys ADD COLUMN operation text;
ALTER TABLE idempotency_keys ADD COLUMN recovery_point text NOT NULL DEFAULT 'claimed'
  CHECK (recovery_point IN ('claimed', 'created', 'acquirer_called', 'finished'));
ALTER TABLE idempotency_keys ADD COLUMN owner text;
ALTER TABLE idempotency_keys ADD COLUMN result jsonb;
UPDATE idempotency_keys SET recovery_point = CASE WHEN state = 'done' THEN 'finished' WHEN pay_id IS NOT NULL THEN 'acquirer_called' ELSE 'claimed' END;
ALTER TABLE idempotency_keys DROP COLUMN state;
-- The reconciler finishes the keys of an operation by payment.
CREATE INDEX idempotency_keys_pay ON idempotency_keys (pay_id) WHERE pay_id IS NOT NULL;

-- Access-token attempts being checked right now count against the limit too, so that parallel
-- guesses can never check more secrets than the limit (see src/api/auth-failures.ts).
ALTER TABLE auth_failures ADD COLUMN pending integer NOT NULL DEFAULT 0;
