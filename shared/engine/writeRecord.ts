import { putChunk as importedPutChunk } from './byteChunk.ts';
import * as recordKinds from './recordLayout.ts';
import type { RecordLayout } from './recordLayout.ts';
import { writeFloat as importedWriteFloat, writeRounded as importedWriteRounded } from './writeFloat.ts';
import { writeDecimal as importedWriteDecimal } from './writeDecimal.ts';
import { writeInteger as importedWriteInteger } from './writeInteger.ts';
import { writeTimestamp as importedWriteTimestamp } from './writeTimestamp.ts';

// Module-level copies of what the loop calls and compares (as in writeRecordChunks.ts): a loader that turns
// imports into property reads pays them once, not per field.
const putChunk = importedPutChunk;
const writeInteger = importedWriteInteger;
const writeDecimal = importedWriteDecimal;
const writeTimestamp = importedWriteTimestamp;
const writeFloat = importedWriteFloat;
const writeRounded = importedWriteRounded;
const { KIND_DECIMAL, KIND_ENUM, KIND_FLOAT, KIND_INTEGER, KIND_ROUNDED, KIND_TIMESTAMP } = recordKinds;

/**
 * Prints one record whose slots are `values[offset …]` at `pos`, in the layout's format starting with its
 * `firstHead` (JSON: the object `{…}` a simulation's JSON body prints for it, byte for byte, as
 * writeRecordChunks prints each record), and returns the position after it. Like the other writers it may
 * leave up to three bytes of garbage past that position: the view needs `layout.maxRecordBytes` of room.
 * For a record kept after the simulator moved on (a stream's records wait for their delivery time).
 */
export function writeRecord(view: DataView, pos: number, layout: RecordLayout, values: Float64Array, offset: number): number {
  const { kinds, decimals, after, enumChunks, nullChunks } = layout;
  pos = putChunk(view, pos, layout.firstHead);
  for (let j = 0; j < kinds.length; j++) {
    const kind = kinds[j]!;
    const x = values[offset + j]!;
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
  return pos;
}
