import type { PresetName } from './presetTypes.ts';
import type { FieldSpec } from './fieldSpec.ts';
import type { Rng } from './rng.ts';
import type { Scenario, ScenarioEventType } from './scenario.ts';

/** What an engine-3 simulator keys its randomness by, and the events it plays. */
export interface RunContext {
  /** hashSeed(preset, profile, seed): the run's key, without n (prefix rule). */
  readonly key: readonly [number, number, number, number];
  readonly scenario: Scenario | undefined;
}

/**
 * One run's model state. `next()` advances one interaction and writes every field of the record into
 * `values` (slot i is fields[i] of the preset), which both emitters read: generateRecords builds objects
 * from it and writeRecordsJson prints bytes from it, so the two cannot drift apart.
 */
export interface Simulator {
  readonly values: Float64Array;
  next(): void;
}

/** What the engine runs: a preset's model of one engine version, or an account's compiled model. */
export interface EngineModel {
  /** A preset's name, or an account model's. */
  readonly name: string;
  readonly description: string;
  readonly aliases: readonly string[];
  readonly defaultProfile: string;
  readonly profiles: readonly string[];
  readonly states: readonly string[];
  readonly transitions: Readonly<Record<string, readonly string[]>>;
  /** profile -> the state every sequence of that profile starts in. */
  readonly startStates: Readonly<Record<string, string>>;
  /** Records after which a sequence ends even if it has not reached a terminal state. */
  readonly episodeLength: number;
  /** All fields in emission order: sequence_id, interaction_id, state, then the preset's own. */
  readonly fields: readonly FieldSpec[];
  /** Engine 3 on: the event types the model plays, in catalog order; absent before (no scenarios). */
  readonly scenarioEvents?: readonly ScenarioEventType[];
  /** Engines 1 and 2 draw from `rng` (one stream); engine 3 keys its own draws by `run`. */
  createSimulator(profile: string, rng: Rng, run: RunContext): Simulator;
}

/** A preset's model of one engine version. */
export interface PresetModel extends EngineModel {
  readonly name: PresetName;
}
