import type { PresetName, RunInput } from '../shared/engine/presetTypes.ts';
import { timingInput } from '../shared/engine/RunTimingSpec.ts';
import type { RunSpecification } from '../shared/jobs/RunSpecification.ts';
import { compiledModelOf } from '../shared/models/compiledModelOf.ts';

/**
 * What the engine runs for a specification: its preset, or its model compiled (once per thread and
 * version). The job schema has checked that a run without a model names a preset.
 */
export const runInputOf = (spec: RunSpecification): RunInput => {
  const common = {
    profile: spec.profile,
    seed: spec.seed,
    numInteractions: spec.numInteractions,
    serviceVersion: spec.serviceVersion,
    ...(spec.scenario === undefined ? {} : { scenario: spec.scenario }),
    // Engine 4's echoed timing in the engine's units (nothing before engine 4).
    ...timingInput(spec.timing),
  };
  return spec.model === undefined ? { ...common, preset: spec.preset as PresetName } : { ...common, model: compiledModelOf(spec.model) };
};
