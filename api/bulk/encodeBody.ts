import zlib from 'node:zlib';
import type { ContentCoding } from './chooseEncoding.ts';

/** A body's bytes in the order they go out: a whole buffer's one chunk, or a stream's. */
export type Chunks = Iterable<Buffer> | AsyncIterable<Buffer>;

/**
 * Raw bytes per compressed block. The compressor is flushed after every block, at these fixed offsets of
 * the raw body whatever chunks it arrived in, so the coded bytes depend on the raw bytes alone: a replay
 * codes to the same bytes as the first answer, and a byte range of the coded body means the same bytes on
 * every request (what a strong ETag promises).
 */
const BLOCK_BYTES = 256 * 1024;

// Levels chosen for streaming: brotli's default (11) codes about 1 MB/s, far slower than the engine.
const createCompressor = (coding: Exclude<ContentCoding, 'identity'>): zlib.Gzip | zlib.BrotliCompress | zlib.ZstdCompress => {
  switch (coding) {
    case 'gzip':
      return zlib.createGzip({ level: 6 });
    case 'br':
      return zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
    case 'zstd':
      return zlib.createZstdCompress({ params: { [zlib.constants.ZSTD_c_compressionLevel]: 3 } });
  }
};

const flushKind = (coding: Exclude<ContentCoding, 'identity'>): number => {
  switch (coding) {
    case 'gzip':
      return zlib.constants.Z_SYNC_FLUSH;
    case 'br':
      return zlib.constants.BROTLI_OPERATION_FLUSH;
    case 'zstd':
      return zlib.constants.ZSTD_e_flush;
  }
};

/** The source's bytes cut into BLOCK_BYTES blocks (the last one shorter), whatever chunks they came in. */
async function* fixedBlocks(source: Chunks): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of source) {
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (pendingBytes >= BLOCK_BYTES) {
      let all = Buffer.concat(pending, pendingBytes);
      while (all.length >= BLOCK_BYTES) {
        yield all.subarray(0, BLOCK_BYTES);
        all = all.subarray(BLOCK_BYTES);
      }
      pending = all.length === 0 ? [] : [all];
      pendingBytes = all.length;
    }
  }
  if (pendingBytes > 0) {
    yield Buffer.concat(pending, pendingBytes);
  }
}

async function* compress(source: Chunks, coding: Exclude<ContentCoding, 'identity'>): AsyncGenerator<Buffer> {
  const compressor = createCompressor(coding);
  let out: Buffer[] = [];
  let failure: Error | undefined;
  // Flowing: every coded byte of a block is out by the time its flush's callback runs.
  compressor.on('data', (chunk: Buffer) => out.push(chunk));
  compressor.on('error', (error) => {
    failure = error;
  });
  const taken = (): Buffer[] => {
    if (failure !== undefined) {
      throw failure;
    }
    const chunks = out;
    out = [];
    return chunks;
  };
  try {
    for await (const block of fixedBlocks(source)) {
      compressor.write(block);
      await new Promise<void>((resolve) => compressor.flush(flushKind(coding), () => resolve()));
      yield* taken();
    }
    await new Promise<void>((resolve, reject) => {
      compressor.once('end', resolve);
      compressor.once('error', reject);
      compressor.end();
    });
    yield* taken();
  } finally {
    compressor.destroy();
  }
}

const chunksOf = (body: Buffer | Chunks): Chunks => (Buffer.isBuffer(body) ? [body] : body);

/**
 * A body's bytes in a content coding, streamed: identity passes them as they are. An error of the source
 * (a run that failed mid-stream) ends the iteration with that error, so the answer is cut, never whole.
 */
export const encodeBody = (body: Buffer | Chunks, coding: ContentCoding): Chunks =>
  coding === 'identity' ? chunksOf(body) : compress(chunksOf(body), coding);

/** A whole body coded whole: a small run's answer stays one buffer with its Content-Length, as uncoded. */
export const encodeWhole = async (body: Buffer, coding: ContentCoding): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of encodeBody(body, coding)) {
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
};
