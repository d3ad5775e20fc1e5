import { deepFreeze } from './deepFreeze.ts';
import type { FieldSpec } from './fieldSpec.ts';
import { ENGINE_MODELS, presetModels } from './presetModels.ts';
import { engineVersionsOf } from './engineVersions.ts';
import { PRESET_NAMES } from './presetTypes.ts';
import type { PresetDefinition, RecordField } from './presetTypes.ts';
import type { PresetModel } from './simulator.ts';

const FIELD_TYPES: Readonly<Record<FieldSpec['kind'], RecordField['type']>> = {
  integer: 'integer',
  decimal: 'number',
  enum: 'string',
  float: 'number',
};

function definitionOf(model: PresetModel): PresetDefinition {
  return {
    name: model.name,
    description: model.description,
    available: true,
    default_profile: model.defaultProfile,
    supported_profiles: [...model.profiles],
    supported_states: [...model.states],
    aliases: [...model.aliases],
    record_fields: model.fields.map((f) => ({ name: f.name, type: FIELD_TYPES[f.kind], description: f.description })),
    state_transitions: Object.fromEntries(model.states.map((s) => [s, [...(model.transitions[s] ?? [])]])),
    engine_versions: engineVersionsOf(model.name),
    scenario_events: (model.scenarioEvents ?? []).map((e) => ({ type: e.type, description: e.description, effect: e.effect })),
    record_fields_by_engine: Object.fromEntries(
      ENGINE_MODELS.map((engine) => [engine.version, engine.models[model.name].fields.map((f) => f.name)]),
    ),
  };
}

/**
 * The catalog, derived from the newest engine's models themselves so that what the endpoints publish (fields, states,
 * transitions) is what the generators produce. Copies, deeply frozen.
 */
export const PRESETS: readonly PresetDefinition[] = deepFreeze(PRESET_NAMES.map((name) => definitionOf(presetModels[name])));
