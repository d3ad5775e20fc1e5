import type { CounterRng } from '../engine/counterRng.ts';

/**
 * Everything a compiled expression can read: the slots of one run (docs/models.md, "Implementation
 * notes"). Identifiers compile to reads of these slots and nothing else, so no expression can reach a
 * global, a prototype or the process. Strings are ids into the model's string table.
 */
export class ModelFrame {
  /** The params in force (the profile's, or an event's `set` inside its window). */
  readonly params: Float64Array;
  readonly variables: Float64Array;
  /** Number fields of the record being made (as written: rounded, NaN for null). */
  readonly numbers: Float64Array;
  /** String fields of the record being made (string ids). */
  readonly strings: Int32Array;
  readonly rng: CounterRng;
  state = 0;
  prevState = 0;
  step = 0;
  sequence = 0;
  /** The string id of the active event's type, or of ''. */
  event = 0;
  intensity = 0;
  /** Expression nodes evaluated, counted only by a model compiled with `countNodes` (the linearity test). */
  evaluated = 0;

  constructor(rng: CounterRng, params: number, variables: number, fields: number) {
    this.rng = rng;
    this.params = new Float64Array(params);
    this.variables = new Float64Array(variables);
    this.numbers = new Float64Array(fields);
    this.strings = new Int32Array(fields);
  }
}
