import { createSimulation } from './createSimulation.ts';
import type { RunInput, SimulationRecord } from './presetTypes.ts';

const POWERS_OF_TEN = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000];

/** The run as objects (tests, small consumers). writeRecordsJson prints the same records as bytes. */
export function generateRecords(input: RunInput): SimulationRecord[] {
  const { model, simulator, count } = createSimulation(input);
  const fields = model.fields;
  const values = simulator.values;
  const records: SimulationRecord[] = [];
  for (let i = 0; i < count; i++) {
    simulator.next();
    const record: SimulationRecord = {};
    for (let j = 0; j < fields.length; j++) {
      const field = fields[j]!;
      const x = values[j]!;
      record[field.name] =
        field.kind === 'enum' ? (x < 0 ? null : field.values[x]!)
        : field.kind === 'decimal' ? x / POWERS_OF_TEN[field.decimals]!
        : x !== x ? null // an account model's number with no value
        : x;
    }
    records.push(record);
  }
  return records;
}
