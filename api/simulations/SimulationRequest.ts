import type { RunTimingSpec } from '../../shared/engine/RunTimingSpec.ts';
import type { Scenario } from '../../shared/engine/scenario.ts';
import type { ModelSpecification } from '../../shared/jobs/RunSpecification.ts';

/** A validated request, names resolved: the canonical preset or the model version, the profile to use, the seed if one was given. */
export interface SimulationRequest {
  /**
   * The canonical preset (its definition), or for a model run the model's name (the result's `preset`):
   * either way `preset.name` is what the run is called.
   */
  readonly preset: { readonly name: string };
  /**
   * The model version a model run is made from (docs/models.md#running-a-model-post-v1simulations-with-model);
   * absent for a preset run.
   */
  readonly model?: ModelSpecification | undefined;
  readonly profile: string;
  readonly seed: number | undefined;
  readonly numInteractions: number;
  /** The exact engine version to run (metadata.service_version). */
  readonly serviceVersion: string;
  /** Engine 3's scenario, validated (intensity filled); absent for a run without one. */
  readonly scenario?: Scenario | undefined;
  /** Engine 4's start_time, order and population, defaults filled; absent on engines before 4. */
  readonly timing?: RunTimingSpec | undefined;
  /**
   * Set when a recorded, completed run is made again (GET /v1/simulations/{id}/records, an idempotent
   * retry of POST /v1/simulations): its id and the engine version that made it. Same inputs and engine
   * give the same records; a replay writes no ledger row and takes no quota.
   */
  readonly replayOf?: { readonly simulationId: string; readonly serviceVersion: string };
}
