// How a record field is held in a simulator's scratch slot and emitted:
// - integer: the slot holds the integer itself;
// - decimal: the slot holds the value scaled by 10^decimals as an integer, so rounding happens exactly once
//   in the model and both emitters print the same digits;
// - enum: the slot holds an index into `values` (states, event names);
// - float: the slot holds the double itself, NaN for null (an account model's number fields, docs/models.md);
// - timestamp: the slot holds an instant in milliseconds since the Unix epoch, printed as ISO 8601 UTC with
//   milliseconds (engine 4's event_time).
export interface FieldSpec {
  readonly name: string;
  readonly kind: 'integer' | 'decimal' | 'enum' | 'float' | 'timestamp';
  readonly decimals: number;
  readonly values: readonly string[];
  readonly description: string;
  /**
   * A field that may have no value, `null` in JSON, an empty CSV field, a Parquet null: an enum field's slot
   * then holds -1, an integer or float field's NaN (only account models have nullable numbers).
   */
  readonly nullable?: boolean;
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

/**
 * Engine 3's last field: the type of the scenario event active at the record (an index of `types`), or
 * -1 (null) outside every event's window (docs/scenarios.md#the-label-scenario_event).
 */
export function scenarioEventField(types: readonly string[]): FieldSpec {
  return {
    name: 'scenario_event',
    kind: 'enum',
    decimals: 0,
    values: types,
    description: `Type of the scenario event active at this record (${types.join(', ')}), or null outside every event's window`,
    nullable: true,
  };
}

/** Engine 4's field after interaction_id: the instant the interaction happened (docs/api.md#event-time). */
export function eventTimeField(): FieldSpec {
  return {
    name: 'event_time',
    kind: 'timestamp',
    decimals: 0,
    values: [],
    description: 'The instant the interaction happened, ISO 8601 UTC with milliseconds; never decreasing and never repeated within a sequence',
  };
}
