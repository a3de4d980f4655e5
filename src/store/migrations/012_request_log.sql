-- The last requests to the merchant API, per merchant, for the dashboard's request log and
-- GET /v1/gateway/requests. Bodies are stored redacted; the table is pruned to a bound per merchant.
CREATE TABLE merchant_requests (
  id           bigserial PRIMARY KEY,
  client_id    text NOT NULL,
  created_at   timestamptz NOT NULL,
  method       text NOT NULL,
  path         text NOT NULL,
  status       integer NOT NULL,
  system_code  text,
  latency_ms   integer NOT NULL,
  request_id   text NOT NULL,
  request_body text,
  response_body text
);
CREATE INDEX merchant_requests_client ON merchant_requests (client_id, id DESC);
