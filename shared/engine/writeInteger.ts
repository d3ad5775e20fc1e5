import { digitTables } from './digitTables.ts';

const { padded, plain, plainLength } = digitTables;

/**
 * Prints an integer (|v| < 2^53) as ASCII at `pos` and returns the position after it: the same text
 * JSON.stringify gives (-0 prints as 0). Stores are four bytes wide and may leave up to three bytes of
 * garbage past the returned position, which the caller's next write overwrites; the buffer needs that
 * much slack at its end.
 */
export function writeInteger(view: DataView, pos: number, v: number): number {
  if (v < 0) {
    view.setUint8(pos++, 45); // '-'
    v = -v;
  }
  if (v < 10000) {
    view.setInt32(pos, plain[v]!, true);
    return pos + plainLength[v]!;
  }
  if (v < 100000000) {
    // Multiplying by the double nearest 1e-4 (slightly above it) floors correctly below 2^31.
    const high = (v * 0.0001) | 0;
    view.setInt32(pos, plain[high]!, true);
    pos += plainLength[high]!;
    view.setInt32(pos, padded[v - high * 10000]!, true);
    return pos + 4;
  }
  let top = Math.floor(v / 100000000);
  let rest = v - top * 100000000;
  // Near 2^53 the quotient can round up to the next integer; step back if it did.
  if (rest < 0) {
    top--;
    rest += 100000000;
  }
  pos = writeInteger(view, pos, top);
  const high = (rest * 0.0001) | 0;
  view.setInt32(pos, padded[high]!, true);
  view.setInt32(pos + 4, padded[rest - high * 10000]!, true);
  return pos + 8;
}
