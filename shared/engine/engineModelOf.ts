import { ENGINE_VERSION } from './engineVersion.ts';
import { engineModels } from './engineVersions.ts';
import type { RunInput } from './presetTypes.ts';
import { SCENARIO_ENGINE_MAJOR } from './scenario.ts';
import { eventTimeModel } from './eventTime/eventTimeModel.ts';
import { modelClock } from './eventTime/modelClock.ts';
import type { EngineModel } from './simulator.ts';

const EVENT_TIME_MAJOR = 4;
// A compiled model's engine-4 form, made once per compiled model (record layouts are cached by model object).
const TIMED_MODELS = new WeakMap<EngineModel, EngineModel>();

/** The engine major from which account models run (docs/models.md#running-a-model: engine 3.0.0 and later). */
export const MODEL_ENGINE_MAJOR = SCENARIO_ENGINE_MAJOR;

/**
 * The exact engine version a run uses and the model it runs: a preset's model of that version, or the
 * account model compiled for it. The one place both are resolved, so createSimulation and the byte
 * estimates agree. Throws a RangeError for an unknown version or preset, or a model on an engine before 3.
 */
export function engineModelOf(input: RunInput): { serviceVersion: string; model: EngineModel } {
  const serviceVersion = input.serviceVersion ?? ENGINE_VERSION;
  const models = engineModels(serviceVersion);
  if (models === undefined) throw new RangeError(`unknown engine version: ${String(serviceVersion)}`);
  if (input.model !== undefined) {
    if (input.preset !== undefined) throw new RangeError('a run names a preset or a model, not both');
    if (Number(serviceVersion.split('.')[0]) < MODEL_ENGINE_MAJOR) {
      throw new RangeError(`models need engine ${MODEL_ENGINE_MAJOR} or later, not ${serviceVersion}`);
    }
    // Engine 3 runs the compiled form as it is; engine 4 adds event_time from the model's clock.
    const engine = input.model.engine;
    if (Number(serviceVersion.split('.')[0]) < EVENT_TIME_MAJOR) return { serviceVersion, model: engine };
    let timed = TIMED_MODELS.get(engine);
    if (timed === undefined) {
      timed = eventTimeModel(engine, modelClock);
      TIMED_MODELS.set(engine, timed);
    }
    return { serviceVersion, model: timed };
  }
  const preset = input.preset;
  const model = Object.hasOwn(models, preset) ? models[preset] : undefined;
  if (model === undefined) throw new RangeError(`unknown preset: ${String(preset)}`);
  return { serviceVersion, model };
}
