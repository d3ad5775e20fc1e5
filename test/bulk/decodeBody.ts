import zlib from 'node:zlib';

/** A coded body's bytes decoded with Node's own decoders, independent of the service's coder. */
export const decodeBody = (bytes: Buffer, coding: string | undefined): Buffer => {
  switch (coding) {
    case undefined:
    case 'identity':
      return bytes;
    case 'gzip':
      return zlib.gunzipSync(bytes);
    case 'br':
      return zlib.brotliDecompressSync(bytes);
    case 'zstd':
      return zlib.zstdDecompressSync(bytes);
    default:
      throw new Error(`unexpected coding ${coding}`);
  }
};
