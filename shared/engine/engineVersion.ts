// The engine's own semver, published as metadata.service_version. Any change to generated output (models,
// RNG, seeding, formatting) must bump it: the golden digests in test/engine/goldenDigests.test.ts enforce this.
export const ENGINE_VERSION: string = '1.0.0';
