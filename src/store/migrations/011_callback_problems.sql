-- The merchant's failed and undeliverable callbacks (GET /v1/gateway/callbacks), newest first.
CREATE INDEX callback_deliveries_problems ON callback_deliveries (client_id, status, event_id DESC) WHERE status IN ('failed', 'undeliverable');
