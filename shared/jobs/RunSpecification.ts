import type { RunTimingSpec } from '../engine/RunTimingSpec.ts';
import type { ModelDefinition } from '../models/index.ts';
import type { Scenario } from '../engine/scenario.ts';

/** A model run's identity, as the result, the history, the ledger and `Simulation-Model` name it. */
export interface ModelReference {
  readonly name: string;
  readonly version: number;
  /** `sha256:` + hex of the canonical definition. */
  readonly digest: string;
}

/**
 * The model version a run is made from, definition included: the worker compiles it (cached by digest)
 * without reading the database. A definition is no secret of anyone's and at most 64 KiB.
 */
export interface ModelSpecification extends ModelReference {
  readonly definition: ModelDefinition;
}

/**
 * What a run is made from, under one name wherever it travels: the API's idempotency record, the job on
 * the queue (shared/jobs/simulationJob.ts parses it back), the task a pool thread runs. The engine is
 * deterministic, so the same specification makes the same bytes.
 */
export interface RunSpecification {
  readonly simulationId: string;
  /** The canonical preset's name, or the model's name for a model run (the result's `preset`). */
  readonly preset: string;
  /** The model version a model run is made from; absent for a preset run. */
  readonly model?: ModelSpecification | undefined;
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
