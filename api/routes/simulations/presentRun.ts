import type { SimulationRunRow } from '../../../shared/db/queries/simulationRuns.ts';
import type { Run } from './historySchema.ts';

export const presentRun = (row: SimulationRunRow): Run => ({
  simulation_id: row.id,
  preset: row.preset,
  model: row.model_version === null || row.model_digest === null ? null : { name: row.preset, version: row.model_version, digest: row.model_digest },
  profile: row.profile,
  seed: row.seed,
  num_interactions: row.num_interactions,
  status: row.status,
  created_at: row.created_at,
  finished_at: row.finished_at,
  compute_ms: row.compute_ms,
  service_version: row.service_version,
  scenario: row.scenario,
  start_time: row.timing?.start_time ?? null,
  order: row.timing?.order ?? null,
  population: row.timing?.population ?? null,
  // Keys are revoked, never deleted, so a key's run keeps its key; a session's run names no session.
  credential:
    row.api_key_id !== null && row.key_prefix !== null
      ? { type: 'api_key', api_key_id: row.api_key_id, key_prefix: row.key_prefix }
      : { type: 'session' },
});
