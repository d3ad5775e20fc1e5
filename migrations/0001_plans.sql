-- Plans are data, not code: a plan change takes effect on the next request, and new plans need no deploy.
CREATE TABLE plans (
  name text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_]{0,62}$'),
  requests_per_minute integer NOT NULL CHECK (requests_per_minute > 0),
  monthly_requests integer NOT NULL CHECK (monthly_requests >= 0),
  monthly_interactions bigint NOT NULL CHECK (monthly_interactions >= 0),
  max_interactions_per_request integer NOT NULL CHECK (max_interactions_per_request > 0),
  max_concurrent_simulations integer NOT NULL CHECK (max_concurrent_simulations > 0),
  max_active_api_keys integer NOT NULL CHECK (max_active_api_keys >= 0)
);

INSERT INTO plans (name, requests_per_minute, monthly_requests, monthly_interactions, max_interactions_per_request, max_concurrent_simulations, max_active_api_keys)
VALUES
  ('free', 5, 100, 10000, 1000, 1, 1),
  ('pro', 60, 10000, 5000000, 10000, 4, 5),
  ('enterprise', 1200, 1000000, 500000000, 100000, 32, 50);
