import { compileModel, type ModelDefinition, type ModelSample, sampleModel } from '../../shared/models/index.ts';

/**
 * The thread entry of the API's sample pool (api/models/createSamplePool.ts): compiles a checked
 * definition and makes POST /v1/models/validate's sample (10,000 records), off the API's event loop.
 */
export function sampleModelTask(definition: ModelDefinition): ModelSample {
  return sampleModel(compileModel('model', definition));
}
