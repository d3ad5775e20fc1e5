import type { PresetDefinition } from '../../../shared/engine/index.ts';
import type { PresetResponse } from './schema.ts';

export const presentPreset = (preset: PresetDefinition): PresetResponse => ({
  name: preset.name,
  description: preset.description,
  available: preset.available,
  default_profile: preset.default_profile,
  supported_profiles: [...preset.supported_profiles],
  supported_states: [...preset.supported_states],
  aliases: [...preset.aliases],
  record_fields: preset.record_fields.map((field) => ({ ...field })),
  state_transitions: Object.fromEntries(Object.entries(preset.state_transitions).map(([state, next]) => [state, [...next]])),
  engine_versions: [...preset.engine_versions],
  scenario_events: preset.scenario_events.map((event) => ({ ...event })),
  record_fields_by_engine: Object.fromEntries(Object.entries(preset.record_fields_by_engine).map(([version, names]) => [version, [...names]])),
});
