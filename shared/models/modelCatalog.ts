import { MODEL_ENGINE_MAJOR } from '../engine/engineModelOf.ts';
import { ENGINE_MODELS } from '../engine/presetModels.ts';
import type { CompiledModel, ModelCatalog } from './modelTypes.ts';

/** The engine versions that run models (3.0.0 and later), newest first. */
export function modelEngineVersions(): string[] {
  return ENGINE_MODELS.map((engine) => engine.version).filter((version) => Number(version.split('.')[0]) >= MODEL_ENGINE_MAJOR);
}

/** The catalog block of the Model resource: the Preset resource's fields for the model. */
export function modelCatalog(model: CompiledModel): ModelCatalog {
  const engine = model.engine;
  return {
    description: engine.description,
    default_profile: engine.defaultProfile,
    supported_profiles: [...engine.profiles],
    supported_states: [...engine.states],
    record_fields: engine.fields.map((f) => ({
      name: f.name,
      type: f.kind === 'enum' ? 'string' : f.kind === 'integer' ? 'integer' : 'number',
      description: f.description,
      nullable: f.nullable === true,
    })),
    state_transitions: Object.fromEntries(engine.states.map((s) => [s, [...(engine.transitions[s] ?? [])]])),
    scenario_events: (engine.scenarioEvents ?? []).map((e) => ({ type: e.type, description: e.description, effect: e.effect })),
    engine_versions: modelEngineVersions(),
  };
}
