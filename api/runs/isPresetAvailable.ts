import type { Config } from '../../shared/config.ts';
import type { PresetDefinition } from '../../shared/engine/index.ts';

/** A preset can be used unless the engine marks it unavailable or the operator took it out of service. */
export const isPresetAvailable = (config: Config, preset: PresetDefinition): boolean =>
  preset.available && !config.disabledPresets.has(preset.name);
