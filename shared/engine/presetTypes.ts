import type { Scenario, ScenarioEventType } from './scenario.ts';

import type { PresetName } from './presetName.ts';
import type { RunOrder } from './RunOrder.ts';
import type { CompiledModel } from '../models/modelTypes.ts';

export { PRESET_NAMES, type PresetName } from './presetName.ts';

export interface RecordField {
  name: string;
  type: 'integer' | 'number' | 'string';
  description: string;
}

export interface PresetDefinition {
  name: PresetName;
  description: string;
  available: boolean;
  default_profile: string;
  supported_profiles: readonly string[];
  supported_states: readonly string[];
  aliases: readonly string[];
  /** Every field of a record, in emission order, including sequence_id, interaction_id and state. */
  record_fields: readonly RecordField[];
  /** state -> states allowed next within a sequence (self-loops listed; terminal states map to []). */
  state_transitions: Readonly<Record<string, readonly string[]>>;
  /** The engine versions (exact service_version) that can serve this preset, newest first. */
  engine_versions: readonly string[];
  /** The scenario events the newest engine plays for this preset (docs/scenarios.md#what-an-event-does). */
  scenario_events: readonly ScenarioEventType[];
  /** Each engine version's record field names, in emission order. */
  record_fields_by_engine: Readonly<Record<string, readonly string[]>>;
}

export type { RunOrder } from './RunOrder.ts';

interface CommonRunInput {
  profile: string;
  /** uint32 */
  seed: number;
  /** >= 1 */
  numInteractions: number;
  /**
   * The exact engine version (service_version) to run, e.g. "1.0.0"; the newest when absent. Callers
   * resolve what a client asked for (a major or an exact version) with resolveEngineVersion first.
   */
  serviceVersion?: string;
  /** Engine 3 on: the events to play (validated, intensity defaulted); a RangeError on older engines. */
  scenario?: Scenario;
  /** Engine 4 on: start_time in milliseconds since the epoch (default 2026-01-01T00:00:00.000Z). */
  startTime?: number;
  /** Engine 4 on: `sequence` (default) or `time`. */
  order?: RunOrder;
  /** Engine 4 on: subjects live at once, 1..10,000 (default 100). */
  population?: number;
}

/** A run of one of the service's presets. */
export interface SimulationInput extends CommonRunInput {
  preset: PresetName;
  model?: undefined;
}

/** A run of an account's compiled model (docs/models.md#running-a-model): engine 3 and later. */
export interface ModelSimulationInput extends CommonRunInput {
  model: CompiledModel;
  preset?: undefined;
}

/** What the engine and every writer run: exactly one of a preset and a model. */
export type RunInput = SimulationInput | ModelSimulationInput;

/** A record as objects: engine 3's scenario_event is null outside every event's window. */
export type SimulationRecord = Record<string, number | string | null>;
