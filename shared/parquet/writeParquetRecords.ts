import { ByteWriter, type KeyValue, ParquetWriter } from 'hyparquet-writer';
import { createRowGroupWriter } from './createRowGroupWriter.ts';
import { parquetSchema, type ParquetField } from './parquetSchema.ts';
import { createRowGroupColumns, type SlotSource } from './rowGroupColumns.ts';
import { ROW_GROUP_ROWS, rowGroupSizes } from './rowGroupSizes.ts';

export interface ParquetChunkOptions {
  /**
   * Cut chunks at this size; Infinity keeps the whole file in one chunk. When cut, the magic and the first
   * row group (FIRST_ROW_GROUP_ROWS) come alone, in two chunks, so the response's first bytes leave early.
   */
  readonly chunkBytes: number;
  /** Called once the last byte is made, before the last chunk is yielded (to measure the compute time). */
  readonly onEnd?: () => void;
  /** Updated before each chunk is yielded to the rows written so far (as writeRecordChunks' `progress`). */
  readonly progress?: { records: number };
}

export interface ParquetFile {
  readonly fields: readonly ParquetField[];
  readonly source: SlotSource;
  readonly count: number;
  /** The file's key-value metadata: what made the records (never a time or anything else that varies). */
  readonly metadata?: readonly KeyValue[];
}

/**
 * The writer's `created_by`. A constant, not the service's version: the bytes of a run must not change
 * with a release that leaves its records alone (resumed downloads and ETags compare them).
 */
const CREATED_BY = 'behavioral-simulation-service';

/**
 * Prints `count` records from `source` as an Apache Parquet file, one row group at a time (rowGroupSizes),
 * and yields its bytes in chunks as they are made. The bytes depend on the records alone, never on how
 * they are cut. Uncompressed pages, without statistics: PLAIN values and dictionaries (rowGroupColumns.ts,
 * the encodings every mainstream reader decodes) make the file about a sixth of the JSON, and a codec or
 * min/max per column would cost more CPU than the bytes it saves on the way to the client. Every chunk owns its ArrayBuffer, so
 * it can be transferred to another thread; at most one row group is held here at a time.
 */
export function* writeParquetRecords(file: ParquetFile, options: ParquetChunkOptions): Generator<Uint8Array> {
  const { fields, source, count } = file;
  const sink = new ByteWriter(64 * 1024);
  const writer = new ParquetWriter({
    writer: sink,
    schema: parquetSchema(fields),
    codec: 'UNCOMPRESSED',
    statistics: false,
    createdBy: CREATED_BY,
    ...(file.metadata === undefined ? {} : { kvMetadata: [...file.metadata] }),
  });
  const columns = createRowGroupColumns(fields, Math.min(count, ROW_GROUP_ROWS));
  const writeRowGroup = createRowGroupWriter(writer);
  const streamed = Number.isFinite(options.chunkBytes);
  let first = true;

  for (const rows of rowGroupSizes(count)) {
    // One row group, synchronously (the sink has no flush to wait for).
    writeRowGroup(columns.fill(source, rows));
    if (options.progress !== undefined) options.progress.records += rows;
    if (streamed && first) {
      // Two pieces: a consumer that holds a chunk until the next exists passes the first on at once, not
      // after the next row group (the pool thread and the API no longer hold one, but the cut is cheap).
      yield* takeChunks(sink, Math.max(1, Math.ceil(sink.index / 2)));
    } else if (streamed && sink.index >= options.chunkBytes) {
      yield* takeChunks(sink, options.chunkBytes);
    }
    first = false;
  }
  void writer.finish();
  options.onEnd?.();
  yield* takeChunks(sink, options.chunkBytes);
}

/** Moves the sink's bytes out in chunks of at most `chunkBytes`, each a copy that owns its buffer. */
function* takeChunks(sink: ByteWriter, chunkBytes: number): Generator<Uint8Array> {
  const end = sink.index;
  for (let start = 0; start < end; start += chunkBytes) {
    yield new Uint8Array(sink.buffer.slice(start, Math.min(end, start + chunkBytes)));
  }
  // The sink's offset runs on (the file's offsets); only its buffer is emptied for the next row group.
  sink.index = 0;
}
