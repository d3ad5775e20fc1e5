-- Usage over time (the console's per-day and per-credential usage, GET /v1/usage/daily).
--
-- Summing a month of ledger rows per request costs a read of every row: a million runs is hundreds of
-- milliseconds. The database keeps a daily rollup instead, maintained by statement-level AFTER triggers
-- on the ledger, so the application's group-committed ledger writes stay one statement each and need no
-- change, and no write path can forget to count. A read is then one index range of at most
-- days x credentials x statuses rows.
--
-- One row per (account, monthly period, UTC day of the run's created_at, credential, status):
--   runs          ledger rows in that status;
--   requests      of those, the ones that count a request against the quota (charged_interactions set);
--   interactions  the interactions they count (sum of charged_interactions).
-- api_key_id NULL is a run made in a browser session. The period is the row's own period_start, so the
-- rollup's sums over a period equal what GET /v1/usage sums from the ledger.
--
-- Both shapes of the ledger are counted: a row inserted `queued` and then updated to its final status
-- (the UPDATE trigger moves it from one bucket to the other), and a row inserted once, already settled.
CREATE TABLE usage_daily (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  period_start timestamptz NOT NULL,
  day date NOT NULL,
  api_key_id uuid,
  status text NOT NULL,
  runs bigint NOT NULL,
  requests bigint NOT NULL,
  interactions bigint NOT NULL,
  -- The newest created_at seen in the bucket; never lowered (an UPDATE that moves a run out leaves it).
  last_run_at timestamptz,
  -- The read is a range of (account_id, period_start); NULLS NOT DISTINCT makes a session's bucket one row.
  CONSTRAINT usage_daily_bucket UNIQUE NULLS NOT DISTINCT (account_id, period_start, day, api_key_id, status)
) WITH (fillfactor = 70); -- counters change in place: room on the page keeps those updates HOT

CREATE FUNCTION usage_daily_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Buckets are upserted in key order: two ledger statements touching the same buckets lock them in the
  -- same order, so they queue instead of deadlocking.
  INSERT INTO usage_daily AS bucket (account_id, period_start, day, api_key_id, status, runs, requests, interactions, last_run_at)
  SELECT account_id, period_start, (created_at AT TIME ZONE 'UTC')::date, api_key_id, status,
    count(*), count(charged_interactions), coalesce(sum(charged_interactions), 0), max(created_at)
  FROM inserted_runs
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT ON CONSTRAINT usage_daily_bucket DO UPDATE
  SET runs = bucket.runs + excluded.runs,
    requests = bucket.requests + excluded.requests,
    interactions = bucket.interactions + excluded.interactions,
    last_run_at = greatest(bucket.last_run_at, excluded.last_run_at);
  RETURN NULL;
END
$$;

CREATE FUNCTION usage_daily_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each updated row leaves the bucket of its old version and enters the bucket of its new one; rows
  -- whose bucket and charge did not change cancel out and touch nothing.
  INSERT INTO usage_daily AS bucket (account_id, period_start, day, api_key_id, status, runs, requests, interactions, last_run_at)
  SELECT account_id, period_start, day, api_key_id, status, sum(runs), sum(requests), sum(interactions), max(last_run_at)
  FROM (
    SELECT account_id, period_start, (created_at AT TIME ZONE 'UTC')::date AS day, api_key_id, status,
      1 AS runs, (charged_interactions IS NOT NULL)::int AS requests, coalesce(charged_interactions, 0) AS interactions,
      created_at AS last_run_at
    FROM updated_runs_new
    UNION ALL
    SELECT account_id, period_start, (created_at AT TIME ZONE 'UTC')::date, api_key_id, status,
      -1, -(charged_interactions IS NOT NULL)::int, -coalesce(charged_interactions, 0), NULL
    FROM updated_runs_old
  ) AS changes
  GROUP BY account_id, period_start, day, api_key_id, status
  HAVING sum(runs) <> 0 OR sum(requests) <> 0 OR sum(interactions) <> 0
  ORDER BY account_id, period_start, day, api_key_id, status
  ON CONFLICT ON CONSTRAINT usage_daily_bucket DO UPDATE
  SET runs = bucket.runs + excluded.runs,
    requests = bucket.requests + excluded.requests,
    interactions = bucket.interactions + excluded.interactions,
    last_run_at = greatest(bucket.last_run_at, excluded.last_run_at);
  RETURN NULL;
END
$$;

-- PostgreSQL allows transition tables for one event per trigger: one trigger each for INSERT and UPDATE.
-- (Ledger rows are never deleted on their own; an account's deletion removes its buckets by cascade.)
CREATE TRIGGER simulations_usage_daily_insert
  AFTER INSERT ON simulations REFERENCING NEW TABLE AS inserted_runs
  FOR EACH STATEMENT EXECUTE FUNCTION usage_daily_count_inserted();

CREATE TRIGGER simulations_usage_daily_update
  AFTER UPDATE ON simulations REFERENCING OLD TABLE AS updated_runs_old NEW TABLE AS updated_runs_new
  FOR EACH STATEMENT EXECUTE FUNCTION usage_daily_count_updated();

-- The backfill sees every committed row and no write can slip between it and the triggers: the triggers'
-- creation already holds a lock that blocks ledger writes until this migration commits.
LOCK TABLE simulations IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO usage_daily (account_id, period_start, day, api_key_id, status, runs, requests, interactions, last_run_at)
SELECT account_id, period_start, (created_at AT TIME ZONE 'UTC')::date, api_key_id, status,
  count(*), count(charged_interactions), coalesce(sum(charged_interactions), 0), max(created_at)
FROM simulations
GROUP BY 1, 2, 3, 4, 5;
