-- Sandbox outcomes on demand (issue 14).

-- The simulated acquirer can leave an authorisation undecided until a time on the sandbox clock
-- (bank-login users and QR answers that settle minutes later).
ALTER TABLE sim_authorisations DROP CONSTRAINT sim_authorisations_status_check;
ALTER TABLE sim_authorisations ADD CONSTRAINT sim_authorisations_status_check CHECK (status IN ('challenge', 'no_answer', 'delayed', 'approved', 'declined'));
ALTER TABLE sim_authorisations ADD COLUMN settle_at timestamptz;

-- Faults a merchant asked for: its next `remaining` operations of the kind fail that way. Consumed
-- one at a time by one statement (several gateway processes agree on who takes which).
CREATE TABLE sandbox_faults (
  id         bigserial PRIMARY KEY,
  client_id  text NOT NULL,
  operation  text NOT NULL CHECK (operation IN ('authorise', 'capture', 'void', 'refund', 'execution')),
  outcome    text NOT NULL CHECK (outcome IN ('decline', 'lost', 'error')),
  times      integer NOT NULL CHECK (times > 0),
  remaining  integer NOT NULL CHECK (remaining >= 0),
  created_at timestamptz NOT NULL
);
CREATE INDEX sandbox_faults_open ON sandbox_faults (client_id, operation, id) WHERE remaining > 0;

-- Which acquirer call a fault struck: a repeated call for the same reference (the reconciler asking
-- again after a lost answer) is the same operation and takes no second fault.
CREATE TABLE sandbox_fault_hits (
  reference  text PRIMARY KEY,
  fault_id   bigint NOT NULL REFERENCES sandbox_faults (id),
  outcome    text NOT NULL,
  created_at timestamptz NOT NULL
);
