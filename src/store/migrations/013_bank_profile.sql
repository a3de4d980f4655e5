-- The bank profile (issue 14): per merchant, answers shaped as the real bank's and the bank's
-- limits. Limits are minor units of GEL: 3,000.00 per transaction and 10,000.00 per business day by
-- default (the bank's published standard limits), configurable per merchant.
ALTER TABLE merchants ADD COLUMN profile text NOT NULL DEFAULT 'karibche' CHECK (profile IN ('karibche', 'bank'));
ALTER TABLE merchants ADD COLUMN transaction_limit bigint NOT NULL DEFAULT 300000 CHECK (transaction_limit > 0);
ALTER TABLE merchants ADD COLUMN daily_limit bigint NOT NULL DEFAULT 1000000 CHECK (daily_limit > 0);

-- The GEL volume a bank-profile merchant has taken on per business day. A payment is counted when
-- it is created (in the same transaction, by one conditional upsert, so concurrent requests in
-- several processes can never pass the limit together) and given back when it ends without money
-- (Failed, Expired).
CREATE TABLE merchant_daily_volume (
  client_id    text NOT NULL,
  business_day text NOT NULL,
  total        bigint NOT NULL CHECK (total >= 0),
  PRIMARY KEY (client_id, business_day)
);

-- The business day whose volume counts this payment (null: not counted).
ALTER TABLE payments ADD COLUMN limit_day text;

CREATE FUNCTION karibche_release_daily_volume() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE merchant_daily_volume SET total = total - NEW.amount
  WHERE client_id = NEW.client_id AND business_day = NEW.limit_day;
  RETURN NULL;
END
$$;
-- Every path that fails or expires a payment (attempts, the sweeper, the reconciler) goes through
-- an UPDATE of the status, so the volume is given back whatever code made the change.
CREATE TRIGGER payments_release_daily_volume
AFTER UPDATE OF status ON payments
FOR EACH ROW WHEN (NEW.limit_day IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status AND NEW.status IN ('Failed', 'Expired'))
EXECUTE FUNCTION karibche_release_daily_volume();
