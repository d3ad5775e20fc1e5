import { engineModelOf } from './engineModelOf.ts';
import type { RunInput } from './presetTypes.ts';
import { Rng } from './rng.ts';
import { runKey } from './runKey.ts';
import { checkScenario, SCENARIO_ENGINE_MAJOR } from './scenario.ts';
import { DEFAULT_TIMING } from './eventTime/eventTimeModel.ts';
import type { EngineModel, RunTiming, Simulator } from './simulator.ts';

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
    checkScenario(scenario, model.scenarioEvents.map((e) => e.type), model.episodeLength, model.timed === true);
  }
  const timing = timingOf(input, model.timed === true, serviceVersion);
  // A model's randomness is addressed by its digest, as a preset's by its name
  // (docs/models.md#semantics-of-one-sequence).
  const key = runKey(input);
  const rng = new Rng(key);
  const run = timing === undefined ? { key, scenario, count: numInteractions } : { key, scenario, timing, count: numInteractions };
  return { serviceVersion, model, simulator: model.createSimulator(profile, rng, run), count: numInteractions };
}

/** The limits of `population` (docs/api.md#running-a-simulation). */
export const POPULATION_LIMITS = { min: 1, max: 10_000 } as const;

/** Engine 4's clock inputs, defaulted; a RangeError when given to an earlier engine or out of bounds. */
function timingOf(input: RunInput, timed: boolean, serviceVersion: string): RunTiming | undefined {
  const { startTime, order, population } = input;
  if (!timed) {
    if (startTime !== undefined || order !== undefined || population !== undefined) {
      throw new RangeError(`start_time, order and population need engine 4 or later, not ${serviceVersion}`);
    }
    return undefined;
  }
  if (startTime !== undefined && !Number.isSafeInteger(startTime)) throw new RangeError('startTime must be integer milliseconds');
  if (order !== undefined && order !== 'sequence' && order !== 'time') throw new RangeError(`order must be sequence or time, got ${String(order)}`);
  if (population !== undefined && !(Number.isInteger(population) && population >= POPULATION_LIMITS.min && population <= POPULATION_LIMITS.max)) {
    throw new RangeError(`population must be an integer ${POPULATION_LIMITS.min}..${POPULATION_LIMITS.max}`);
  }
  return {
    startTime: startTime ?? DEFAULT_TIMING.startTime,
    order: order ?? DEFAULT_TIMING.order,
    population: population ?? DEFAULT_TIMING.population,
  };
}
