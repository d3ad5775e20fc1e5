import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { OutputFormat } from '../../shared/engine/index.ts';
import { API_VERSION } from '../../shared/version.ts';
import type { ContentCoding } from './chooseEncoding.ts';

/** Raised when this layer changes the bytes it makes of a body (block size, levels), so old tags stop matching. */
const BODY_REVISION = '2';

const parquetWriterVersion = (): string => {
  const entry = createRequire(import.meta.url).resolve('hyparquet-writer');
  let directory = path.dirname(entry);
  while (path.basename(directory) !== 'hyparquet-writer' && path.dirname(directory) !== directory) {
    directory = path.dirname(directory);
  }
  return (JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as { version: string }).version;
};

// What else decides a body's bytes besides the run: the coder's library, the Parquet writer, the API
// version the JSON result names. Read once per process.
const CODER_VERSIONS: Readonly<Record<ContentCoding, string>> = {
  identity: '',
  gzip: `zlib ${process.versions.zlib}`,
  br: `brotli ${process.versions.brotli}`,
  zstd: `zstd ${process.versions.zstd ?? ''}`,
};
const PARQUET_WRITER = `hyparquet-writer ${parquetWriterVersion()}`;

/**
 * The strong ETag of a run's records in one format and coding (docs/bulk-data.md#resumable-downloads): the same
 * run, format and coding give the same tag, and the same tag promises the same bytes, so it is derived from
 * everything that decides them: the run (its id names its inputs), the engine version, the format, the coding
 * and the versions of the code that prints and codes them.
 */
export const bodyTag = (input: {
  readonly simulationId: string;
  readonly serviceVersion: string;
  readonly format: OutputFormat;
  readonly coding: ContentCoding;
}): string => {
  const printer = input.format === 'parquet' ? PARQUET_WRITER : `api ${API_VERSION}`;
  const digest = createHash('sha256')
    .update([BODY_REVISION, input.simulationId, input.serviceVersion, input.format, printer, input.coding, CODER_VERSIONS[input.coding]].join('\n'))
    .digest('base64url')
    .slice(0, 32);
  return `"${input.format}-${input.coding}-${digest}"`;
};
