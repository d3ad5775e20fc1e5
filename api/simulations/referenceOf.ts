import type { ModelReference, ModelSpecification } from '../../shared/runs/runSpecification.ts';

/** A model version's identity without its definition: what headers, results, the ledger and records carry. */
export const referenceOf = (model: ModelSpecification | undefined): ModelReference | undefined => {
  if (model === undefined) {
    return undefined;
  }
  const { definition: _definition, ...reference } = model;
  return reference;
};
