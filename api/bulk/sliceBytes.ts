import type { Chunks } from './encodeBody.ts';
/**
 * The bytes `first` to `last` (inclusive, offsets of the whole body) of a stream of chunks. Stops reading
 * the source once `last` is out (its iterator is closed, which destroys a stream); `onCut` is called then,
 * when bytes of the source were left unread, so whatever makes them can stop.
 */
export async function* sliceBytes(source: Chunks, first: number, last: number, onCut: () => void): AsyncGenerator<Buffer> {
  let offset = 0;
  for await (const chunk of source) {
    const start = Math.max(first - offset, 0);
    const end = Math.min(last + 1 - offset, chunk.length);
    offset += chunk.length;
    if (offset > last) {
      // Before the last bytes go out, so whatever the source held (a slot) is free by the time the client
      // asks for its next range.
      onCut();
      yield chunk.subarray(start, end);
      return;
    }
    if (end > start) {
      yield chunk.subarray(start, end);
    }
  }
}
