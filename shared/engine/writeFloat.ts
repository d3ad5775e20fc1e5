import { writeInteger } from './writeInteger.ts';

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
