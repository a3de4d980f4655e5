-- Karibche schema, version 1. Amounts are bigint minor units; times are timestamptz written from
-- the gateway's clock (never now()), so sandbox time travel moves everything together.

CREATE TABLE settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE merchants (
  client_id              text PRIMARY KEY,
  name                   text NOT NULL,
  status                 text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  currencies             text[] NOT NULL,
  methods                int[] NOT NULL,
  split_enrolled         boolean NOT NULL DEFAULT false,
  save_card_enabled      boolean NOT NULL DEFAULT false,
  default_callback_url   text,
  callback_url_prefixes  text[] NOT NULL DEFAULT '{}',
  test_mode              boolean NOT NULL DEFAULT false,
  test_amount_limit      bigint NOT NULL DEFAULT 10000,
  brand_color            text,
  logo_url               text,
  client_secret_hash     text NOT NULL,
  -- Incremented by every client-secret rotation; tokens carry it, so older tokens stop working.
  secret_version         integer NOT NULL DEFAULT 1,
  -- HMAC keys must be usable to sign, so they cannot be hashed; the previous one keeps signing
  -- alongside the new one until callback_secret_prev_until.
  callback_secret        text NOT NULL,
  callback_secret_prev   text,
  callback_secret_prev_until timestamptz,
  created_at             timestamptz NOT NULL,
  updated_at             timestamptz NOT NULL
);

CREATE TABLE api_keys (
  key_hash    text PRIMARY KEY,
  client_id   text NOT NULL REFERENCES merchants (client_id),
  prefix      text NOT NULL,
  created_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
CREATE INDEX api_keys_client ON api_keys (client_id);

-- JWT signing keys, shared by every gateway process; the newest active key signs.
CREATE TABLE signing_keys (
  kid         text PRIMARY KEY,
  secret      text NOT NULL,
  created_at  timestamptz NOT NULL,
  retired_at  timestamptz
);

-- client_id has no foreign key on purpose: a foreign-key check takes a KEY SHARE lock on the
-- merchant's row for every insert, and thousands of payments a second for one merchant turn that
-- one row into a MultiXact hot spot. client_id always comes from the authenticated merchant, and
-- merchants are never deleted (only suspended).
CREATE TABLE payments (
  pay_id               text PRIMARY KEY,
  client_id            text NOT NULL,
  status               text NOT NULL,
  currency             text NOT NULL,
  amount               bigint NOT NULL CHECK (amount >= 0),
  subtotal             bigint,
  tax                  bigint,
  shipping             bigint,
  confirmed_amount     bigint,
  returned_amount      bigint NOT NULL DEFAULT 0,
  return_url           text NOT NULL,
  callback_url         text,
  extra                text,
  extra2               text,
  split_iban           text,
  split_amount         bigint,
  split_returned_amount bigint,
  user_ip              text,
  expiration_minutes   integer NOT NULL,
  expires_at           timestamptz NOT NULL,
  methods              integer[] NOT NULL,
  installment_products jsonb,
  pre_auth             boolean NOT NULL DEFAULT false,
  pre_auth_expires_at  timestamptz,
  language             text NOT NULL DEFAULT 'KA',
  merchant_payment_id  text,
  skip_info_message    boolean NOT NULL DEFAULT false,
  save_card            boolean NOT NULL DEFAULT false,
  save_card_to_date    text,
  rec_id               text,
  description          text,
  transaction_id       text,
  rrn                  text,
  payment_method       integer,
  result_code          text,
  initiator            text NOT NULL DEFAULT 'client',
  card_mask            text,
  attempts             integer NOT NULL DEFAULT 0,
  -- Sequence number of the latest row in payment_events for this payment (0: none yet).
  event_seq            integer NOT NULL DEFAULT 0,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL
);
CREATE UNIQUE INDEX payments_rec_id ON payments (rec_id) WHERE rec_id IS NOT NULL;
CREATE INDEX payments_expiring ON payments (expires_at) WHERE status = 'Created';

-- The transactional outbox: one row per status change, written in the same transaction as the
-- change. The callback dispatcher delivers the rows whose status is final.
CREATE TABLE payment_events (
  id          bigserial PRIMARY KEY,
  pay_id      text NOT NULL REFERENCES payments (pay_id),
  seq         integer NOT NULL,
  status      text NOT NULL,
  final       boolean NOT NULL,
  created_at  timestamptz NOT NULL,
  UNIQUE (pay_id, seq)
);
CREATE INDEX payment_events_final ON payment_events (id) WHERE final;

CREATE TABLE idempotency_keys (
  client_id       text NOT NULL REFERENCES merchants (client_id),
  key             text NOT NULL,
  request_hash    text NOT NULL,
  state           text NOT NULL CHECK (state IN ('running', 'done')),
  response_status integer,
  response_body   text,
  created_at      timestamptz NOT NULL,
  locked_until    timestamptz,
  PRIMARY KEY (client_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Failed access-token attempts per key (client id or source address) in a fixed window.
CREATE TABLE auth_failures (
  key           text PRIMARY KEY,
  window_start  timestamptz NOT NULL,
  failures      integer NOT NULL
);
