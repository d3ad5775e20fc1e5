-- Streams in the usage over time (GET /v1/usage/daily, docs/limits.md): a stream counts by the UTC day it
-- was created and the credential that created it, as a simulation does. `api_key_id` NULL is a stream made
-- in a browser session (streams created before this migration read as a session's). The daily read and
-- the quota's rebuild both take an account's streams of one period: one index range.
ALTER TABLE streams ADD COLUMN api_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL;
CREATE INDEX streams_period_idx ON streams (account_id, period_start);
