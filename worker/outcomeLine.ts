import type { ScenarioOutcome } from '../shared/engine/scenario.ts';
import { OUTCOME_LINE_TAG } from '../shared/jobs/simulationJob.ts';
import { eventJson } from './eventJson.ts';

/**
 * The NDJSON line a dataset's run ends with (docs/datasets.md#2-the-archive): what the engine made of the
 * scenario, `["scenario_outcome", {"placed": [...], "unplaced": [...]}]` (null for a run without one). An
 * array, so no reader takes it for a record (every record is an object); its events printed as the
 * result's `scenario` prints them, so the archive's manifest lists what the result lists.
 */
export const outcomeLine = (outcome: ScenarioOutcome | undefined): Uint8Array => {
  const json = outcome === undefined ? 'null' : `{"placed":[${outcome.placed.map(eventJson).join(',')}],"unplaced":[${outcome.unplaced.map(eventJson).join(',')}]}`;
  return Buffer.from(`[${JSON.stringify(OUTCOME_LINE_TAG)},${json}]\n`);
};
