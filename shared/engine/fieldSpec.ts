// How a record field is held in a simulator's scratch slot and emitted:
// - integer: the slot holds the integer itself;
// - decimal: the slot holds the value scaled by 10^decimals as an integer, so rounding happens exactly once
//   in the model and both emitters print the same digits;
// - enum: the slot holds an index into `values` (states, event names).
export interface FieldSpec {
  readonly name: string;
  readonly kind: 'integer' | 'decimal' | 'enum';
  readonly decimals: number;
  readonly values: readonly string[];
  readonly description: string;
}

export function integerField(name: string, description: string): FieldSpec {
  return { name, kind: 'integer', decimals: 0, values: [], description };
}

export function decimalField(name: string, decimals: number, description: string): FieldSpec {
  return { name, kind: 'decimal', decimals, values: [], description };
}

export function enumField(name: string, values: readonly string[], description: string): FieldSpec {
  return { name, kind: 'enum', decimals: 0, values, description };
}

/** The three fields every record starts with; slots 0, 1 and 2 of every simulator. */
export function commonFields(states: readonly string[]): FieldSpec[] {
  return [
    integerField('sequence_id', 'Sequence number from 1; a sequence is one simulated subject\'s episode'),
    integerField('interaction_id', 'Interaction index within the simulation, 1..num_interactions'),
    enumField('state', states, 'State of the subject at this interaction, one of supported_states'),
  ];
}
