-- The ledger: one row per admitted simulation request. Monthly usage is counted from it, so it is the
-- truth that Redis counters are rebuilt from.
CREATE TABLE simulations (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  api_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL,
  session_id uuid,
  preset text NOT NULL,
  profile text NOT NULL,
  seed bigint NOT NULL CHECK (seed BETWEEN 0 AND 4294967295),
  num_interactions integer NOT NULL CHECK (num_interactions > 0),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'completed', 'failed', 'timed_out')),
  -- The first instant of the UTC calendar month the request counts against.
  period_start timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  compute_ms integer
);

CREATE INDEX simulations_account_period_idx ON simulations (account_id, period_start) INCLUDE (status, num_interactions);
CREATE INDEX simulations_queued_idx ON simulations (created_at) WHERE status = 'queued';
