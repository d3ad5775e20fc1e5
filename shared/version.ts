// The API's own semver, reported by /health, /ready and metadata.api_version. The engine has its own
// version (shared/engine), because its output changes on a different rhythm from the HTTP contract.
export const API_VERSION = '1.0.0';
