import { hashSeed } from './hashSeed.ts';
import { engineModelOf } from './engineModelOf.ts';
import type { RunInput } from './presetTypes.ts';
import { Rng } from './rng.ts';
import { checkScenario, SCENARIO_ENGINE_MAJOR } from './scenario.ts';
import type { EngineModel, Simulator } from './simulator.ts';

export interface Simulation {
  /** The exact engine version that runs, metadata.service_version. */
  readonly serviceVersion: string;
  readonly model: EngineModel;
  readonly simulator: Simulator;
  readonly count: number;
}

/**
 * Validates the input and seeds a fresh simulator. Callers validate requests against the catalog first;
 * these checks are the engine's own guard so a bad job can never produce silently wrong data.
 */
export function createSimulation(input: RunInput): Simulation {
  const { profile, seed, numInteractions } = input;
  // The one place a run's engine version is chosen: every writer gets its simulator from here.
  const { serviceVersion, model } = engineModelOf(input);
  if (!model.profiles.includes(profile)) {
    throw new RangeError(`unknown profile for ${model.name}: ${String(profile)}`);
  }
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`seed must be an integer in 0..4294967295, got ${String(seed)}`);
  }
  if (!Number.isSafeInteger(numInteractions) || numInteractions < 1) {
    throw new RangeError(`numInteractions must be an integer >= 1, got ${String(numInteractions)}`);
  }
  const scenario = input.scenario;
  if (scenario !== undefined) {
    if (model.scenarioEvents === undefined) {
      throw new RangeError(`scenarios need engine ${SCENARIO_ENGINE_MAJOR} or later, not ${serviceVersion}`);
    }
    checkScenario(scenario, model.scenarioEvents.map((e) => e.type));
  }
  // A model's randomness is addressed by its digest, as a preset's by its name (DECISIONS "Models").
  const key = input.model === undefined ? hashSeed(input.preset, profile, seed) : hashSeed(input.model.digest, profile, seed);
  const rng = new Rng(key);
  return { serviceVersion, model, simulator: model.createSimulator(profile, rng, { key, scenario }), count: numInteractions };
}
