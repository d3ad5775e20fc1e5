import test from 'ava';
import { generateRecords, PRESETS } from '../../shared/engine/index.ts';
import { writeParquetChunks } from '../../shared/parquet/writeParquetChunks.ts';
import { readParquet } from './readParquet.ts';

// Engine 3's scenario_event in Parquet: an OPTIONAL UTF-8 column whose nulls are the records' nulls, with a
// scenario's labels where its events are, read back by an independent reader as the JSON has them.
for (const preset of PRESETS) {
  test(`${preset.name}: a scenario run's Parquet holds the JSON's records, scenario_event null outside the windows`, async (t) => {
    const events = preset.scenario_events.map(({ type }, k) => ({ type, sequence: k === 0 ? ('all' as const) : k + 1, at_step: 2 + 3 * k, duration: 7, intensity: 1 + k / 2 }));
    const input = { preset: preset.name, profile: preset.default_profile, seed: 99, numInteractions: 3_000, scenario: { events } };
    const file = await readParquet(Buffer.concat([...writeParquetChunks(input, { chunkBytes: 64 * 1024 })]));
    const column = file.columns.at(-1)!;
    t.is(column.name, 'scenario_event');
    t.is(column.repetition, 'OPTIONAL');
    const records = generateRecords(input);
    t.deepEqual(file.records, records);
    t.true(records.some((r) => r.scenario_event === null) && records.some((r) => r.scenario_event === preset.scenario_events[0]!.type));
  });
}
