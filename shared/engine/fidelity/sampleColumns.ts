import { createSimulation } from '../createSimulation.ts';
import type { SimulationInput } from '../presetTypes.ts';

const POWERS_OF_TEN = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000];

/** A run as one column per field: numbers as published (decimals unscaled), enums as value indices. */
export interface SampleColumns {
  readonly length: number;
  readonly column: (name: string) => Float64Array;
  /** The index of an enum field's value, e.g. a state, to compare with its column. */
  readonly indexOf: (name: string, value: string) => number;
}

/** Runs the engine straight into columns: no record objects, so 100,000-interaction samples stay cheap. */
export function sampleColumns(input: SimulationInput): SampleColumns {
  const { model, simulator, count } = createSimulation(input);
  const fields = model.fields;
  const columns = fields.map(() => new Float64Array(count));
  const scales = fields.map((f) => (f.kind === 'decimal' ? POWERS_OF_TEN[f.decimals]! : 1));
  const values = simulator.values;
  for (let i = 0; i < count; i++) {
    simulator.next();
    for (let j = 0; j < fields.length; j++) columns[j]![i] = values[j]! / scales[j]!;
  }
  const fieldIndex = (name: string): number => {
    const j = fields.findIndex((f) => f.name === name);
    if (j < 0) throw new Error(`no field ${name} in ${model.name}`);
    return j;
  };
  return {
    length: count,
    column: (name) => columns[fieldIndex(name)]!,
    indexOf: (name, value) => {
      const k = fields[fieldIndex(name)]!.values.indexOf(value);
      if (k < 0) throw new Error(`no value ${value} of ${name} in ${model.name}`);
      return k;
    },
  };
}
