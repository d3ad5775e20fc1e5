import { CHUNK_BYTES, ENGINE_VERSION, type OutputFormat, writeRecordChunks } from '../shared/engine/index.ts';
import { writeParquetChunks } from '../shared/parquet/writeParquetChunks.ts';
import { API_VERSION } from '../shared/version.ts';
import { resultEnvelope } from '../worker/resultEnvelope.ts';

export interface AloneResult {
  readonly ms: number;
  readonly bytes: number;
}

/**
 * The engine alone writing a run's whole body in one thread, in the worker's chunks, each dropped once
 * made: the floor a streamed response of the same bytes is compared with.
 */
export const writeRunAlone = (preset: 'finance', numInteractions: number, format: OutputFormat): AloneResult => {
  const task = { simulationId: '00000000-0000-4000-8000-000000000000', preset, profile: 'balanced_investor', seed: 2026, numInteractions, serviceVersion: ENGINE_VERSION, apiVersion: API_VERSION, format };
  const envelope = format === 'json' ? resultEnvelope(task) : undefined;
  const started = performance.now();
  let bytes = 0;
  const chunks =
    format === 'parquet'
      ? writeParquetChunks(task, { chunkBytes: CHUNK_BYTES })
      : writeRecordChunks(task, format, {
          chunkBytes: CHUNK_BYTES,
          ...(envelope === undefined ? {} : { head: envelope.head, tail: (outcome) => envelope.tail(Math.round(performance.now() - started), outcome) }),
        });
  for (const chunk of chunks) {
    bytes += chunk.byteLength;
  }
  return { ms: performance.now() - started, bytes };
};
