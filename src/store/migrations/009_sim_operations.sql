-- The sandbox acquirer's record of operations it performed without the gateway hearing back (test
-- card 4000 0000 0000 5126): the reconciler's repeated call finds them done.
CREATE TABLE sim_operations (
  reference  text PRIMARY KEY,
  kind       text NOT NULL,
  created_at timestamptz NOT NULL
);
