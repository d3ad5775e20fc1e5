-- Run history and replay (docs/api.md#run-history-and-replay). A run is fully determined by its inputs and
-- the engine version, so the ledger keeps the engine's service_version beside the inputs it already has:
-- a replay years later runs that engine again. Every row before this migration was made by engine 1.0.0.
-- A constant default is a catalog-only change in PostgreSQL 11+: no table rewrite, no long lock.
ALTER TABLE simulations ADD COLUMN service_version text NOT NULL DEFAULT '1.0.0';

-- History pages are keyset scans, newest first, of one account's rows: (created_at, id) is the cursor, id
-- breaking ties between rows of one transaction (a group-committed batch shares its now()). One index per
-- filter combination, each ending in the cursor's columns, so every page, filtered or not, is a bounded
-- index range read, however many rows the account or the filter skips (a filter on a non-leading column
-- would scan every non-matching row first, the whole account's history when nothing matches).
CREATE INDEX simulations_history_idx ON simulations (account_id, created_at DESC, id DESC);
CREATE INDEX simulations_history_preset_idx ON simulations (account_id, preset, created_at DESC, id DESC);
CREATE INDEX simulations_history_status_idx ON simulations (account_id, status, created_at DESC, id DESC);
CREATE INDEX simulations_history_preset_status_idx ON simulations (account_id, preset, status, created_at DESC, id DESC);
