export type PresetName = 'education' | 'finance' | 'healthcare' | 'mobile_app';

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
}

export interface SimulationInput {
  preset: PresetName;
  profile: string;
  /** uint32 */
  seed: number;
  /** >= 1 */
  numInteractions: number;
}

export type SimulationRecord = Record<string, number | string>;
