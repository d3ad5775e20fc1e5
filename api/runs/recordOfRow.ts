import type { SimulationRunRow } from '../../shared/db/queries/simulationRuns.ts';
import type { RunRecord } from '../../shared/runs/runSpecification.ts';

/** A history row's run record: the ledger's columns under the code's names (a model run's `preset` is its model's name). */
export const recordOfRow = (row: SimulationRunRow): RunRecord => ({
  simulationId: row.id,
  preset: row.preset,
  profile: row.profile,
  seed: row.seed,
  numInteractions: row.num_interactions,
  serviceVersion: row.service_version,
  ...(row.scenario === null ? {} : { scenario: row.scenario }),
  ...(row.timing === null ? {} : { timing: row.timing }),
  ...(row.model_version === null || row.model_digest === null ? {} : { model: { name: row.preset, version: row.model_version, digest: row.model_digest } }),
});
