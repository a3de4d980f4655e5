-- The payment an idempotent request created, linked in the same transaction that created it, so a
-- retry after a crash answers that payment instead of running the request again.
ALTER TABLE idempotency_keys ADD COLUMN pay_id text;
