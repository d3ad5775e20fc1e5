-- The ledger's share of cancelled runs and scenarios (docs/fair-use.md#cancelled-runs, docs/scenarios.md).
--
-- A run whose client left is settled `cancelled`: apart from `failed` (a fault of ours) in history,
-- metrics and the console. What a settled run counts against the quota is no longer implied by its
-- status alone (a client that leaves after its first bytes pays for what the engine made), so the row
-- says it: `charged_interactions` is NULL for a run that counts no request (failed, timed out, or
-- cancelled before its first bytes left), else the interactions it counts (a completed run: all of them).
-- A `queued` row is a reservation of `num_interactions` and has no charge yet.
ALTER TABLE simulations DROP CONSTRAINT simulations_status_check;
ALTER TABLE simulations ADD CONSTRAINT simulations_status_check
  CHECK (status IN ('queued', 'completed', 'failed', 'timed_out', 'cancelled'));

ALTER TABLE simulations ADD COLUMN charged_interactions integer
  CHECK (charged_interactions IS NULL OR (charged_interactions >= 0 AND charged_interactions <= num_interactions));
UPDATE simulations SET charged_interactions = num_interactions WHERE status = 'completed';

-- Engine 3's scenario (`{"events": [...]}`) as the request gave it after validation, or NULL: a replay
-- reproduces the run byte for byte from its inputs, and the scenario is one of them.
ALTER TABLE simulations ADD COLUMN scenario jsonb;
