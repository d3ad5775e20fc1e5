// The model language's public surface (docs/models.md#the-language): parse, check, compile, then run
// (docs/development.md#code-conventions). The resource half (routes, storage, jobs, clients) uses only what is exported here.
export type {
  CompiledModel,
  ExpressionSource,
  ModelCatalog,
  ModelCheck,
  ModelClock,
  ModelDefinition,
  ModelEvent,
  ModelField,
  ModelFieldSummary,
  ModelIssue,
  ModelRecordField,
  ModelSample,
  ModelVariable,
} from './modelTypes.ts';
export { checkModelDefinition } from './checkModelDefinition.ts';
export { canonicalModelJson, modelDigest } from './modelDigest.ts';
export { compileModel } from './compileModel.ts';
export { modelCatalog, modelEngineVersions } from './modelCatalog.ts';
export { sampleModel } from './sampleModel.ts';
export { MODEL_LIMITS, MODEL_NAME_PATTERN, isModelName } from './modelLimits.ts';
