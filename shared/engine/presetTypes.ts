/** The one list of preset names, in catalog order; the type, the catalog and the request schemas derive from it. */
export const PRESET_NAMES = ['education', 'finance', 'healthcare', 'mobile_app'] as const;

export type PresetName = (typeof PRESET_NAMES)[number];

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
}

export interface SimulationInput {
  preset: PresetName;
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
}

export type SimulationRecord = Record<string, number | string>;
