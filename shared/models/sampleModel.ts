import { createSimulation } from '../engine/createSimulation.ts';
import { generateRecords } from '../engine/generateRecords.ts';
import type { CompiledModel, ModelFieldSummary, ModelSample } from './modelTypes.ts';

const SAMPLE_RECORDS = 20;
const SUMMARY_RECORDS = 10_000;
const SEED = 1;

/**
 * POST /v1/models/validate's `sample` (docs/models.md#checking-without-storing-post-v1modelsvalidate): the
 * first 20 records of seed 1 with the default profile, and over 10,000 records the share of records per state
 * and per field its mean, min, max and count of nulls (string fields: nulls only, mean/min/max null). The
 * summary reads the simulator's slots, so it costs no record objects.
 */
export function sampleModel(model: CompiledModel): ModelSample {
  const profile = model.engine.defaultProfile;
  const records = generateRecords({ model, profile, seed: SEED, numInteractions: SAMPLE_RECORDS });
  // The summary reads engine 3's slots (state in slot 2, the fields after it): engine 4's records are the
  // same but for event_time in slot 2 (docs/api.md#event-time), so the summary runs engine 3.
  const { simulator } = createSimulation({ model, profile, seed: SEED, numInteractions: SUMMARY_RECORDS, serviceVersion: '3.0.0' });
  const fields = model.engine.fields;
  const states = model.engine.states;
  const stateCounts = new Float64Array(states.length);
  const own = fields.slice(3, fields.length - 1);
  const sums = new Float64Array(own.length);
  const counts = new Float64Array(own.length);
  const mins = new Float64Array(own.length).fill(Infinity);
  const maxs = new Float64Array(own.length).fill(-Infinity);
  const nulls = new Float64Array(own.length);
  const values = simulator.values;
  for (let i = 0; i < SUMMARY_RECORDS; i++) {
    simulator.next();
    stateCounts[values[2]!]!++;
    for (let j = 0; j < own.length; j++) {
      if (own[j]!.kind === 'enum') continue;
      const x = values[3 + j]!;
      if (x !== x) {
        nulls[j]!++;
        continue;
      }
      sums[j]! += x;
      counts[j]!++;
      if (x < mins[j]!) mins[j] = x;
      if (x > maxs[j]!) maxs[j] = x;
    }
  }
  const summaryFields: Record<string, ModelFieldSummary> = {};
  own.forEach((field, j) => {
    const n = counts[j]!;
    // A sum beyond the doubles' range has no finite mean to report (JSON has no Infinity).
    const mean = sums[j]! / n;
    summaryFields[field.name] = n === 0 ? { mean: null, min: null, max: null, nulls: nulls[j]! } : { mean: Number.isFinite(mean) ? mean : null, min: mins[j]!, max: maxs[j]!, nulls: nulls[j]! };
  });
  return {
    records,
    summary: {
      records: SUMMARY_RECORDS,
      states: Object.fromEntries(states.map((s, i) => [s, stateCounts[i]! / SUMMARY_RECORDS])),
      fields: summaryFields,
    },
  };
}
