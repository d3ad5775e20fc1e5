import type { PresetName } from './presetName.ts';
import type { RunOrder } from './RunOrder.ts';
import type { FieldSpec } from './fieldSpec.ts';
import type { Rng } from './rng.ts';
import type { Scenario, ScenarioEventType, ScenarioOutcome } from './scenario.ts';

/** Engine 4's clock inputs (docs/api.md#event-time). */
export interface RunTiming {
  /** start_time in milliseconds since the epoch: no record is earlier. */
  readonly startTime: number;
  /** `sequence`: a sequence after another; `time`: a population of subjects merged in event_time order. */
  readonly order: RunOrder;
  /** Subjects live at once (1..10,000). */
  readonly population: number;
}


/** What an engine-3 simulator keys its randomness by, and the events it plays. */
export interface RunContext {
  /** hashSeed(preset, profile, seed): the run's key, without n (prefix rule). */
  readonly key: readonly [number, number, number, number];
  readonly scenario: Scenario | undefined;
  /** Engine 4 on: the run's clock inputs, defaulted (earlier engines ignore it). */
  readonly timing?: RunTiming;
  /**
   * How many records the run takes (numInteractions): a simulator that makes records ahead (engine 4 in
   * time order) makes no more than the run can still print. Never changes a record.
   */
  readonly count?: number;
}

/**
 * One run's model state. `next()` advances one interaction and writes every field of the record into
 * `values` (slot i is fields[i] of the preset), which both emitters read: generateRecords builds objects
 * from it and writeRecordsJson prints bytes from it, so the two cannot drift apart.
 */
export interface Simulator {
  readonly values: Float64Array;
  next(): void;
  /** Engine 3 on: the scenario's placed and unplaced events among the records made so far. */
  scenarioOutcome?(): ScenarioOutcome;
}

/**
 * An engine-3 simulator that engine 4 runs one subject at a time: it can be positioned at any sequence
 * (its randomness is addressed by sequence and step, so it draws that sequence's own numbers) and says when
 * a sequence has ended.
 */
export interface SubjectSimulator extends Simulator {
  seek(sequenceId: number): void;
  readonly sequenceEnded: boolean;
  /** Where at_time event k starts in the sequence about to run (ScenarioSchedule.setStart). */
  setEventStart(k: number, step: number): void;
  /**
   * Engine 4 in time order: a record is made before the merge prints it, and may never be; from now on
   * the scenario outcome counts an event's first record only once `confirmScenarioNote` says it was printed.
   */
  holdScenarioNotes(): void;
  /** The record made last was printed (after holdScenarioNotes). */
  confirmScenarioNote(): void;
  /**
   * An account model's clock (docs/models.md#running-a-model, `clock`): the seconds before the record just
   * written, its start_offset_seconds on a sequence's first record, its step_seconds after. Presets have none.
   */
  clockSeconds?(): number;
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
  /** Engine 4 on: records carry event_time, and a run takes `RunContext.timing`. */
  readonly timed?: boolean;
  /** Engines 1 and 2 draw from `rng` (one stream); engine 3 keys its own draws by `run`. */
  createSimulator(profile: string, rng: Rng, run: RunContext): Simulator;
}

/** A preset's model of one engine version. */
export interface PresetModel extends EngineModel {
  readonly name: PresetName;
}
