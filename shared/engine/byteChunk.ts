/**
 * Constant ASCII text packed little-endian into int32 words, so it is copied four bytes per store. The
 * last word is zero-padded; the padding lands past the chunk's end and is overwritten by the next write.
 */
export interface ByteChunk {
  readonly words: Int32Array;
  readonly length: number;
}

export function byteChunk(text: string): ByteChunk {
  const words = new Int32Array(Math.ceil(text.length / 4));
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) throw new Error('chunks are ASCII only');
    words[i >> 2]! |= code << (8 * (i & 3));
  }
  return { words, length: text.length };
}

export function putChunk(view: DataView, pos: number, chunk: ByteChunk): number {
  const words = chunk.words;
  for (let k = 0; k < words.length; k++) view.setInt32(pos + 4 * k, words[k]!, true);
  return pos + chunk.length;
}
