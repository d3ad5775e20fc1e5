import type { Chunks } from './encodeBody.ts';
/** The chunks as they pass; `onEnd` gets their total once the source ended whole (never after an error or a cut). */
export async function* countBytes(source: Chunks, onEnd: (total: number) => void): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    yield chunk;
  }
  onEnd(total);
}
