import { PRESETS } from '../../../shared/engine/index.ts';
import type { ValidationIssue } from '../../../shared/errors/errors.ts';
import { isModelName } from '../../../shared/models/index.ts';

const PRESET_NAMES_AND_ALIASES = new Set(PRESETS.flatMap((preset) => [preset.name, ...preset.aliases]));

/** Why `name` may not name a model (the pattern, a preset's name or alias), or nothing. */
export const checkModelName = (name: string): ValidationIssue[] => {
  if (!isModelName(name)) {
    return [{ path: 'name', message: 'A model name is 1–40 characters: a lowercase letter, then lowercase letters, digits or `_`.' }];
  }
  if (PRESET_NAMES_AND_ALIASES.has(name)) {
    return [{ path: 'name', message: `${name} is a preset's name; a model needs a name of its own.` }];
  }
  return [];
};
