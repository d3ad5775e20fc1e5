-- Download links (POST /v1/simulations/{id}/links, GET and HEAD /v1/downloads/{token}): a run's records in
-- one format, served without credentials until expires_at. Only a digest of the token is kept: a database
-- leak reveals no usable link. A link ends with the key that made it (revoked, or rolled past its grace
-- period) and with its account's deactivation; both are read on every download, so the end is exact.
CREATE TABLE download_links (
  id uuid PRIMARY KEY,
  token_digest bytea NOT NULL UNIQUE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  simulation_id uuid NOT NULL REFERENCES simulations (id) ON DELETE CASCADE,
  -- The credential that made the link: a key (its revocation ends the link), or a browser session.
  api_key_id uuid REFERENCES api_keys (id) ON DELETE CASCADE,
  session_id uuid,
  format text NOT NULL CHECK (format IN ('json', 'ndjson', 'csv', 'parquet')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  CHECK ((api_key_id IS NULL) <> (session_id IS NULL))
);

CREATE INDEX download_links_account_id_idx ON download_links (account_id);
CREATE INDEX download_links_simulation_id_idx ON download_links (simulation_id);
