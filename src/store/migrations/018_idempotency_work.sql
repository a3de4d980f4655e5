-- What a key's request is doing at the payment it is linked to, in the domain's words ('operation':
-- a cancel or completion under way), so the reconciler finds the keys of the operation it settles
-- without knowing the merchant API's operation names (an HTTP concept). Keys of operations under
-- way when this runs are marked from the API names they were stored with.
ALTER TABLE idempotency_keys ADD COLUMN work text;
UPDATE idempotency_keys SET work = 'operation'
WHERE recovery_point = 'acquirer_called' AND operation IN ('cancel-payment', 'complete-payment');
