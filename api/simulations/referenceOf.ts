import type { ModelReference, ModelSpecification } from '../../shared/jobs/RunSpecification.ts';

/** A model version's identity without its definition: what headers, results, the ledger and records carry. */
export const referenceOf = (model: ModelSpecification | undefined): ModelReference | undefined =>
  model === undefined ? undefined : { name: model.name, version: model.version, digest: model.digest };
