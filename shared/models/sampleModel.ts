import type { CompiledModel, ModelSample } from './modelTypes.ts';

/** POST /v1/models/validate's `sample`: the first 20 records of seed 1 (default profile), a summary over 10,000. */
export function sampleModel(model: CompiledModel): ModelSample {
  void model;
  throw new Error('not written yet');
}
