-- Checkout, acquirer simulator and saved cards (issue 3).

-- The 3-D Secure challenge an attempt is waiting for, and the card's own expiry (MMYY) once known.
ALTER TABLE payments ADD COLUMN challenge_id text;
ALTER TABLE payments ADD COLUMN card_expiry text;
CREATE INDEX payments_processing ON payments (updated_at) WHERE status = 'Processing';

-- Saved cards: the acquirer's token, never the card number.
CREATE TABLE saved_cards (
  rec_id        text PRIMARY KEY,
  client_id     text NOT NULL,
  pay_id        text NOT NULL REFERENCES payments (pay_id),
  card_token    text NOT NULL,
  card_mask     text NOT NULL,
  card_expiry   text NOT NULL,
  -- MMYY until which the card may be charged: saveCardToDate capped at the card's expiry.
  valid_to      text NOT NULL,
  status        text NOT NULL CHECK (status IN ('pending', 'active', 'deleted')),
  split_iban    text,
  split_amount  bigint,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);
CREATE INDEX saved_cards_client ON saved_cards (client_id);

-- The sandbox acquirer's own books (a real acquirer keeps these on its side). A card is kept as the
-- behaviour its test number stands for plus its mask, never as the number.
CREATE TABLE sim_authorisations (
  reference      text PRIMARY KEY,
  status         text NOT NULL CHECK (status IN ('challenge', 'no_answer', 'approved', 'declined')),
  behaviour      text NOT NULL,
  result_code    text,
  transaction_id text,
  rrn            text,
  card_token     text,
  card_mask      text,
  card_expiry    text,
  block_days     integer,
  challenge_id   text UNIQUE,
  amount         bigint NOT NULL,
  currency       text NOT NULL,
  -- The split allocation applied: split_amount to split_iban, the rest to the merchant.
  split_iban     text,
  split_amount   bigint,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);

CREATE TABLE sim_card_tokens (
  token        text PRIMARY KEY,
  behaviour    text NOT NULL,
  card_mask    text NOT NULL,
  card_expiry  text NOT NULL,
  created_at   timestamptz NOT NULL
);
