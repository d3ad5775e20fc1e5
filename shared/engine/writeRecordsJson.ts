import { putChunk } from './byteChunk.ts';
import { createSimulation } from './createSimulation.ts';
import type { RunInput } from './presetTypes.ts';
import { KIND_DECIMAL, KIND_ENUM, KIND_FLOAT, KIND_INTEGER, KIND_ROUNDED, recordLayout } from './recordLayout.ts';
import { writeFloat, writeRounded } from './writeFloat.ts';
import { writeDecimal } from './writeDecimal.ts';
import { writeInteger } from './writeInteger.ts';

// Runs print into one scratch buffer per thread, reused from run to run: touching fresh memory for every
// run costs more than the printing. A scratch grown beyond RETAINED_BYTES is let go after
// the run, so one huge run does not pin its memory for the thread's lifetime.
const RETAINED_BYTES = 32 * 1024 * 1024;
let scratch = new ArrayBuffer(1024 * 1024);

/**
 * The run as the UTF-8 bytes of its JSON array, printed in one pass straight from the simulator's scratch
 * values, with no record objects and no intermediate string. Byte-identical to
 * Buffer.from(JSON.stringify(generateRecords(input))).
 */
export function writeRecordsJson(input: RunInput): Buffer {
  const { model, simulator, count } = createSimulation(input);
  const layout = recordLayout(model);
  const { kinds, decimals, after, enumChunks, nullChunks, maxRecordBytes } = layout;
  const fieldCount = kinds.length;
  const values = simulator.values;

  let buffer = scratch;
  let view = new DataView(buffer);
  let limit = buffer.byteLength - maxRecordBytes - 1;
  let pos = 0;
  view.setUint8(pos++, 91); // '['
  for (let i = 0; i < count; i++) {
    if (pos > limit) {
      const grown = new ArrayBuffer(Math.max(buffer.byteLength * 2, pos + 2 * maxRecordBytes));
      new Uint8Array(grown).set(new Uint8Array(buffer, 0, pos));
      buffer = grown;
      view = new DataView(buffer);
      limit = buffer.byteLength - maxRecordBytes - 1;
    }
    simulator.next();
    pos = putChunk(view, pos, i === 0 ? layout.firstHead : layout.nextHead);
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
  view.setUint8(pos++, 93); // ']'
  if (buffer.byteLength <= RETAINED_BYTES) scratch = buffer;
  // An exact-size copy that owns its whole ArrayBuffer, safe to transfer between threads.
  const out = Buffer.allocUnsafeSlow(pos);
  out.set(new Uint8Array(buffer, 0, pos));
  return out;
}
