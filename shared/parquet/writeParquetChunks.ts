import { createSimulation } from '../engine/createSimulation.ts';
import type { RunInput } from '../engine/presetTypes.ts';
import { type ParquetChunkOptions, writeParquetRecords } from './writeParquetRecords.ts';

/**
 * A run's records as an Apache Parquet file, cut into chunks as its row groups are made: the Parquet
 * counterpart of the engine's writeRecordChunks, and like it a pure function of the run's inputs (the
 * same inputs give the same bytes, however they are chunked). The simulator comes from the engine's own
 * createSimulation, the one place a run's engine version is chosen, so every engine version is served.
 */
export function* writeParquetChunks(input: RunInput, options: ParquetChunkOptions): Generator<Uint8Array> {
  const { serviceVersion, model, simulator, count } = createSimulation(input);
  yield* writeParquetRecords(
    {
      fields: model.fields,
      source: simulator,
      count,
      // What made the records, so a file describes itself (pyarrow's schema.metadata, DuckDB's parquet_kv_metadata).
      metadata: [
        { key: 'bss.preset', value: model.name },
        { key: 'bss.profile', value: input.profile },
        { key: 'bss.seed', value: String(input.seed) },
        { key: 'bss.num_interactions', value: String(count) },
        { key: 'bss.engine_version', value: serviceVersion },
      ],
    },
    options,
  );
}
