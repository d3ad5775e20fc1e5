import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CliContext } from './CliContext.ts';
import { openOutput } from './openOutput.ts';

/**
 * Writes a body as it arrives to `--out FILE` (whole or not at all: cli/openOutput.ts) or to standard
 * output, and answers how many bytes it wrote (what the commands tell a terminal).
 */
export const writeBytesOut = async (context: CliContext, bytes: AsyncIterable<Uint8Array>, out: string | undefined): Promise<number> => {
  const output = out === undefined ? undefined : openOutput(out);
  let written = 0;
  try {
    await pipeline(
      bytes,
      async function* (chunks: AsyncIterable<Uint8Array>) {
        for await (const chunk of chunks) {
          written += chunk.byteLength;
          yield chunk;
        }
      },
      (output?.stream ?? context.stdout) as Writable,
      { end: output !== undefined, signal: context.signal },
    );
    await output?.commit();
  } catch (error) {
    await output?.discard();
    throw error;
  }
  return written;
};
