-- Merchant payment search (GET /v1/gateway/payments): keyset pagination newest first, per merchant.
CREATE INDEX payments_client_created ON payments (client_id, created_at DESC, pay_id DESC);
