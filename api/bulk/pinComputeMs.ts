import type { Chunks } from './encodeBody.ts';
// The JSON result ends with its metadata, compute_ms inside: `…,"compute_ms":123,"reproducible":true}}`.
// Held back: more than that tail can ever be.
const TAIL_BYTES = 512;
const COMPUTE_MS_TAIL = /"compute_ms":\d+(,"reproducible":(?:true|false)\}\})$/;

/**
 * A replayed JSON body with the recorded run's compute_ms in place of the replay's own, so every replay is
 * byte-identical to the first answer (a strong ETag and byte ranges need one body, not one per run).
 * Everything but the last bytes passes as it comes; a body whose tail is not the expected metadata passes
 * unchanged.
 */
export async function* pinComputeMs(source: Chunks, computeMs: number): AsyncGenerator<Buffer> {
  let held: Buffer = Buffer.alloc(0);
  for await (const chunk of source) {
    const all = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
    if (all.length > TAIL_BYTES) {
      yield all.subarray(0, all.length - TAIL_BYTES);
      held = Buffer.from(all.subarray(all.length - TAIL_BYTES));
    } else {
      held = all;
    }
  }
  yield Buffer.from(held.toString('latin1').replace(COMPUTE_MS_TAIL, `"compute_ms":${computeMs}$1`), 'latin1');
}
