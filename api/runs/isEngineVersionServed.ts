import { resolveEngineVersion } from '../../shared/engine/index.ts';

/**
 * Whether this service can still run the engine that made a recorded run (docs/api.md#engine-versions:
 * every shipped engine is kept, so only a version removed on purpose is refused, 410).
 */
export const isEngineVersionServed = (serviceVersion: string): boolean => resolveEngineVersion(serviceVersion) === serviceVersion;
