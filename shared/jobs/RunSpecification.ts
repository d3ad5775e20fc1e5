import type { PresetName } from '../engine/presetName.ts';
import type { RunTimingSpec } from '../engine/RunTimingSpec.ts';
import type { Scenario } from '../engine/scenario.ts';

/**
 * What a run is made from, under one name wherever it travels: the API's idempotency record, the job on
 * the queue (shared/jobs/simulationJob.ts parses it back), the task a pool thread runs. The engine is
 * deterministic, so the same specification makes the same bytes.
 */
export interface RunSpecification {
  readonly simulationId: string;
  readonly preset: PresetName;
  readonly profile: string;
  readonly seed: number;
  readonly numInteractions: number;
  /** Engine 3's scenario; absent for a run without one. */
  readonly scenario?: Scenario | undefined;
  /** Engine 4's start_time, order and population; absent on engines before 4. */
  readonly timing?: RunTimingSpec | undefined;
  /** The exact engine version to run (metadata.service_version). */
  readonly serviceVersion: string;
}
