import { writeInteger } from './writeInteger.ts';
import { writeDecimal } from './writeDecimal.ts';

/**
 * Prints a finite double as ASCII at `pos`, the same text JSON.stringify gives (the shortest that reads
 * back as the same double; -0 as 0), and returns the position after it. Safe integers take the integer
 * printer's fast path. Like writeInteger, may leave up to three bytes of garbage past the end.
 */
export function writeFloat(view: DataView, pos: number, x: number): number {
  if (Number.isSafeInteger(x)) return writeInteger(view, pos, x);
  const text = String(x);
  for (let i = 0; i < text.length; i++) view.setUint8(pos + i, text.charCodeAt(i));
  return pos + text.length;
}

const POWERS_OF_TEN = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000];
const EXACT_SCALED = 4503599627370496; // 2^52: writeDecimal's exact range

/**
 * Prints a double already rounded to `decimals` (1..8) places: through writeDecimal's digit tables while
 * its scaled value is in that printer's exact range (the common case, money and rates), else as
 * writeFloat. The same text either way: JSON.stringify's.
 */
export function writeRounded(view: DataView, pos: number, x: number, decimals: number): number {
  const scaled = Math.round(x * POWERS_OF_TEN[decimals]!);
  return scaled < EXACT_SCALED && scaled > -EXACT_SCALED ? writeDecimal(view, pos, scaled, decimals) : writeFloat(view, pos, x);
}
