import { ENGINE_MODELS, type PresetModels } from './presetModels.ts';
import type { PresetName } from './presetTypes.ts';

const EXACT = new Map(ENGINE_MODELS.map((engine) => [engine.version, engine.models]));

/**
 * The exact engine version a client's `engine_version` names: a major ("1", "2") means the newest version
 * of that major, an exact version ("1.0.0") itself; absent means the newest engine. undefined when the
 * service has no such version.
 */
export function resolveEngineVersion(requested?: string): string | undefined {
  if (requested === undefined) return ENGINE_MODELS[0]!.version;
  if (EXACT.has(requested)) return requested;
  if (/^[1-9][0-9]{0,5}$/.test(requested)) {
    // ENGINE_MODELS is newest first, so the first match is the newest of that major.
    return ENGINE_MODELS.find((engine) => engine.version.split('.')[0] === requested)?.version;
  }
  return undefined;
}

/** The models of an exact engine version, or undefined when the service has no such version. */
export function engineModels(serviceVersion: string): PresetModels | undefined {
  return EXACT.get(serviceVersion);
}

/** The exact versions that can serve a preset, newest first. */
export function engineVersionsOf(preset: PresetName): string[] {
  return ENGINE_MODELS.filter((engine) => Object.hasOwn(engine.models, preset)).map((engine) => engine.version);
}
