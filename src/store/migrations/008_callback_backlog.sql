-- The callback backlog metrics read only deliveries not yet delivered: a partial index keeps that
-- cheap however many delivered callbacks the table holds.
CREATE INDEX callback_deliveries_open ON callback_deliveries (status, created_at) WHERE status <> 'delivered';
