-- Refunds, voids and completions (issue 5).

-- When the payment was approved: its business day decides the same-day cancel rule.
ALTER TABLE payments ADD COLUMN paid_at timestamptz;
CREATE INDEX payments_blocks ON payments (pre_auth_expires_at) WHERE status = 'WaitingConfirm';
CREATE INDEX payments_operating ON payments (updated_at) WHERE status IN ('CancelPaymentProcessing', 'PaymentCompletionProcessing');

-- Every merchant operation on a paid payment. An operation is 'processing' from the moment its
-- Processing status is committed until the acquirer's answer is applied.
CREATE TABLE payment_operations (
  id            bigserial PRIMARY KEY,
  pay_id        text NOT NULL REFERENCES payments (pay_id),
  kind          text NOT NULL CHECK (kind IN ('refund', 'void', 'capture')),
  amount        bigint NOT NULL CHECK (amount > 0),
  split_amount  bigint,
  status        text NOT NULL CHECK (status IN ('processing', 'done', 'refused')),
  -- The status to go back to when the acquirer refuses.
  prev_status   text NOT NULL,
  -- Calendar day (in KARIBCHE_TIMEZONE) the operation was made on.
  business_day  text NOT NULL,
  reference     text NOT NULL UNIQUE,
  result_code   text,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);
CREATE INDEX payment_operations_pay ON payment_operations (pay_id, id);

-- A charge of a saved card records which card it used; such payments have no checkout return URL.
ALTER TABLE payments ADD COLUMN charged_rec_id text;
ALTER TABLE payments ALTER COLUMN return_url DROP NOT NULL;
