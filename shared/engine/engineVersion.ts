import { ENGINE_MODELS } from './presetModels.ts';

// The newest engine's semver, the default metadata.service_version. Any change to generated output (models,
// RNG, seeding, formatting) must be a new version beside the old ones in presetModels.ts: the golden
// digests in test/engine/goldenDigests.test.ts enforce this for every version.
export const ENGINE_VERSION: string = ENGINE_MODELS[0]!.version;
