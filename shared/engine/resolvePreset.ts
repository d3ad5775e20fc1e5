import { PRESETS } from './presets.ts';
import type { PresetDefinition } from './presetTypes.ts';

/** The preset named exactly (case-sensitive) by its name or one of its aliases, e.g. `mobile`. */
export function resolvePreset(nameOrAlias: string): PresetDefinition | undefined {
  return PRESETS.find((p) => p.name === nameOrAlias || p.aliases.includes(nameOrAlias));
}
