import { PRESETS } from '../../../shared/engine/index.ts';
import { validationFailed } from '../../../shared/errors/errors.ts';
import { isModelName } from '../../../shared/models/index.ts';

const PRESET_NAMES_AND_ALIASES = new Set(PRESETS.flatMap((preset) => [preset.name, ...preset.aliases]));

/** Throws 422 unless `name` may name a model: the pattern, and never a preset's name or alias. */
export const checkModelName = (name: string): void => {
  if (!isModelName(name)) {
    throw validationFailed([{ path: 'name', message: 'A model name is 1–40 characters: a lowercase letter, then lowercase letters, digits or `_`.' }]);
  }
  if (PRESET_NAMES_AND_ALIASES.has(name)) {
    throw validationFailed([{ path: 'name', message: `${name} is a preset's name; a model needs a name of its own.` }]);
  }
};
