import { putChunk as importedPutChunk } from './byteChunk.ts';
import { createSimulation } from './createSimulation.ts';
import type { TextFormat } from './outputFormat.ts';
import type { ScenarioOutcome } from './scenario.ts';
import { engineModelOf } from './engineModelOf.ts';
import type { RunInput } from './presetTypes.ts';
import * as recordKinds from './recordLayout.ts';
import { recordLayout } from './recordLayout.ts';
import { writeFloat as importedWriteFloat, writeRounded as importedWriteRounded } from './writeFloat.ts';
import { writeDecimal as importedWriteDecimal } from './writeDecimal.ts';
import { writeInteger as importedWriteInteger } from './writeInteger.ts';
import { writeTimestamp as importedWriteTimestamp } from './writeTimestamp.ts';

// Module-level copies of what the record loop calls and compares: a loader that turns imports into
// property reads (tsx, in development and the benchmarks) then pays them once, not per field.
const putChunk = importedPutChunk;
const writeInteger = importedWriteInteger;
const writeDecimal = importedWriteDecimal;
const writeTimestamp = importedWriteTimestamp;
const writeFloat = importedWriteFloat;
const writeRounded = importedWriteRounded;
const { KIND_DECIMAL, KIND_ENUM, KIND_FLOAT, KIND_INTEGER, KIND_ROUNDED, KIND_TIMESTAMP } = recordKinds;

/** A chunk is cut once it holds this many bytes: big enough to amortise a hop, small enough to bound memory. */
export const CHUNK_BYTES = 256 * 1024;

export interface RecordChunkOptions {
  /** Bytes before the records (the JSON result's head); part of the first chunk. */
  readonly head?: Uint8Array;
  /**
   * Bytes after the records, asked for once the last record is printed (so it can state the compute time
   * and, engine 3 on, what the run made of its scenario).
   */
  readonly tail?: (outcome: ScenarioOutcome | undefined) => Uint8Array;
  /** Cut chunks at this size; Infinity keeps the whole run in one chunk. */
  readonly chunkBytes?: number;
  /** Cut the first chunk sooner, so a streamed response's first bytes leave early; chunkBytes when absent. */
  readonly firstChunkBytes?: number;
  /**
   * Updated before each chunk is yielded to the records printed so far, so a consumer knows how many
   * interactions a chunk completes (what a client that leaves mid-stream is charged for).
   */
  readonly progress?: { records: number };
}

const NO_BYTES = new Uint8Array(0);
const ASCII = new TextEncoder();

/**
 * The run's records as bytes in the given format, cut into chunks as they are printed: JSON is the
 * `data` array exactly as writeRecordsJson prints it, NDJSON one record object and `\n` per line, CSV a
 * header row of the record fields in catalog order and one CRLF-ended row per record. Every chunk owns a
 * fresh ArrayBuffer (its view may end before the buffer does), so it can be transferred to another thread
 * and the next chunk printed meanwhile. At most one chunk is held here at a time.
 */
export function* writeRecordChunks(input: RunInput, format: TextFormat, options: RecordChunkOptions = {}): Generator<Uint8Array> {
  const { model, simulator, count } = createSimulation(input);
  const layout = recordLayout(model, format);
  const { kinds, decimals, after, enumChunks, nullChunks, maxRecordBytes } = layout;
  const fieldCount = kinds.length;
  const values = simulator.values;
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  const head = options.head ?? NO_BYTES;
  const opening =
    format === 'json' ? ASCII.encode('[')
    : format === 'csv' ? ASCII.encode(`${model.fields.map((field) => field.name).join(',')}\r\n`)
    : NO_BYTES;
  // Room for what surrounds the records; the JSON tail is well under a kilobyte.
  const slack = 1024 + maxRecordBytes;
  // The whole run's upper bound decides the first buffer, so a small run gets a small buffer.
  const estimate = head.length + opening.length + count * maxRecordBytes + slack;
  const allocate = (): ArrayBuffer => new ArrayBuffer(Math.min(estimate, chunkBytes + slack));

  let buffer = allocate();
  let bytes = new Uint8Array(buffer);
  let view = new DataView(buffer);
  let limit = buffer.byteLength - slack;
  bytes.set(head, 0);
  bytes.set(opening, head.length);
  let pos = head.length + opening.length;
  let cutAt = Math.min(chunkBytes, options.firstChunkBytes ?? chunkBytes);
  for (let i = 0; i < count; i++) {
    if (pos > limit || pos >= cutAt) {
      if (pos >= cutAt) {
        if (options.progress !== undefined) options.progress.records = i;
        yield new Uint8Array(buffer, 0, pos);
        buffer = allocate();
        pos = 0;
        cutAt = chunkBytes;
      } else {
        // Only when a run outgrows its estimate without reaching a chunk's size: never with the bound above.
        const grown = new ArrayBuffer(buffer.byteLength * 2);
        new Uint8Array(grown).set(new Uint8Array(buffer, 0, pos));
        buffer = grown;
      }
      bytes = new Uint8Array(buffer);
      view = new DataView(buffer);
      limit = buffer.byteLength - slack;
    }
    simulator.next();
    pos = putChunk(view, pos, i === 0 || format !== 'json' ? layout.firstHead : layout.nextHead);
    for (let j = 0; j < fieldCount; j++) {
      const kind = kinds[j]!;
      const x = values[j]!;
      if (kind === KIND_INTEGER) {
        pos = putChunk(view, writeInteger(view, pos, x), after[j]!);
      } else if (kind === KIND_DECIMAL) {
        pos = putChunk(view, writeDecimal(view, pos, x, decimals[j]!), after[j]!);
      } else if (kind === KIND_ENUM) {
        // Only a nullable field's slot is ever -1 (engine 3's scenario_event outside every event).
        pos = putChunk(view, pos, x < 0 ? nullChunks[j]! : enumChunks[j]![x]!);
      } else if (kind === KIND_TIMESTAMP) {
        pos = putChunk(view, writeTimestamp(view, pos, x), after[j]!);
      } else if (x !== x) {
        // An account model's number or integer with no value (NaN: docs/models.md).
        pos = putChunk(view, pos, nullChunks[j]!);
      } else {
        const end =
          kind === KIND_ROUNDED ? writeRounded(view, pos, x, decimals[j]!)
          : kind === KIND_FLOAT ? writeFloat(view, pos, x)
          : writeInteger(view, pos, x);
        pos = putChunk(view, end, after[j]!);
      }
    }
  }
  if (format === 'json') view.setUint8(pos++, 93); // ']'
  const tail = options.tail?.(simulator.scenarioOutcome?.()) ?? NO_BYTES;
  if (pos + tail.length > buffer.byteLength) {
    const grown = new ArrayBuffer(pos + tail.length);
    new Uint8Array(grown).set(new Uint8Array(buffer, 0, pos));
    buffer = grown;
  }
  new Uint8Array(buffer).set(tail, pos);
  if (options.progress !== undefined) options.progress.records = count;
  yield new Uint8Array(buffer, 0, pos + tail.length);
}

/** An upper bound of the run's bytes in a format, records only: decides whether a run needs streaming at all. */
export function estimateRecordBytes(input: RunInput, format: TextFormat): number {
  // The layout of the engine that will run: each engine version has its own model objects.
  const { model } = engineModelOf(input);
  return recordLayout(model, format).maxRecordBytes * input.numInteractions;
}
