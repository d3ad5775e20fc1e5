import type { CompiledModel, ModelCatalog } from './modelTypes.ts';

/** The catalog block of the Model resource: the Preset resource's fields for the model. */
export function modelCatalog(model: CompiledModel): ModelCatalog {
  void model;
  throw new Error('not written yet');
}
