-- The ledger's share of engine 4's event time (docs/api.md#event-time).
--
-- Engine 4's start_time, order and population (`{"start_time", "order", "population"}`, defaults
-- filled, start_time canonical) as the request gave them after validation, or NULL for a run on an engine
-- before 4: a replay reproduces the run byte for byte from its inputs, and these are among them.
ALTER TABLE simulations ADD COLUMN timing jsonb;
