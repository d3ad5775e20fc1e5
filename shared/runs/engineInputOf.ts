import type { PresetName, RunInput } from '../engine/presetTypes.ts';
import { timingInput } from '../engine/RunTimingSpec.ts';
import type { CompiledModel } from '../models/index.ts';
import type { RunSpecification } from './runSpecification.ts';

/**
 * What the engine runs for a specification: its preset, or `compiled`, its model compiled (by the worker
 * thread that runs it, or by the API for a dataset's labels). A run without a model names a preset: the
 * job schema checked it (shared/jobs/simulationJob.ts).
 */
export const engineInputOf = (spec: Omit<RunSpecification, 'simulationId'>, compiled: CompiledModel | undefined): RunInput => {
  const { profile, seed, numInteractions, serviceVersion, scenario } = spec;
  // Engine 4's echoed timing in the engine's units (nothing before engine 4).
  const common = { profile, seed, numInteractions, serviceVersion, ...(scenario === undefined ? {} : { scenario }), ...timingInput(spec.timing) };
  return compiled === undefined ? { ...common, preset: spec.preset as PresetName } : { ...common, model: compiled };
};
