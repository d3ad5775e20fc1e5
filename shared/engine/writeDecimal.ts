import { digitTables } from './digitTables.ts';
import { writeInteger } from './writeInteger.ts';

const { padded, strippedLength } = digitTables;
const POWERS_OF_TEN = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000];

/**
 * Prints scaled / 10^decimals (scaled an integer, decimals 1..8) as ASCII at `pos` and returns the
 * position after it, leaving up to three bytes of garbage beyond, like writeInteger. While
 * |scaled| < 2^52 this is exactly the shortest round-trip text JSON.stringify prints for the double
 * scaled / 10^decimals: that double is the one nearest the decimal, and no decimal with fewer digits lies
 * within half a unit in the last place of it. Trailing zeros are dropped; -0 prints as 0.
 */
export function writeDecimal(view: DataView, pos: number, scaled: number, decimals: number): number {
  if (scaled < 0) {
    view.setUint8(pos++, 45); // '-'
    scaled = -scaled;
  }
  const scale = POWERS_OF_TEN[decimals]!;
  let whole = Math.floor(scaled / scale);
  let fraction = scaled - whole * scale;
  if (fraction < 0) {
    whole--;
    fraction += scale;
  }
  pos = writeInteger(view, pos, whole);
  if (fraction === 0) return pos;
  view.setUint8(pos, 46); // '.'
  // The fraction as eight digits, two groups of four; print through the last non-zero digit.
  const eight = fraction * POWERS_OF_TEN[8 - decimals]!;
  const high = (eight * 0.0001) | 0;
  const low = eight - high * 10000;
  view.setInt32(pos + 1, padded[high]!, true);
  if (low === 0) return pos + 1 + strippedLength[high]!;
  view.setInt32(pos + 5, padded[low]!, true);
  return pos + 5 + strippedLength[low]!;
}
