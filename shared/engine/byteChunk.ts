/**
 * Constant text's UTF-8 bytes packed little-endian into int32 words, so it is copied four bytes per store.
 * The last word is zero-padded; the padding lands past the chunk's end and is overwritten by the next
 * write. (Presets' chunks are ASCII; an account model's strings may be any text.)
 */
export interface ByteChunk {
  readonly words: Int32Array;
  readonly length: number;
}

const UTF8 = new TextEncoder();

export function byteChunk(text: string): ByteChunk {
  const bytes = UTF8.encode(text);
  const words = new Int32Array(Math.ceil(bytes.length / 4));
  for (let i = 0; i < bytes.length; i++) words[i >> 2]! |= bytes[i]! << (8 * (i & 3));
  return { words, length: bytes.length };
}

export function putChunk(view: DataView, pos: number, chunk: ByteChunk): number {
  const words = chunk.words;
  for (let k = 0; k < words.length; k++) view.setInt32(pos + 4 * k, words[k]!, true);
  return pos + chunk.length;
}
