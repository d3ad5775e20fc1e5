import type { OutputFormat } from '../../shared/engine/index.ts';

/** The Content-Type each format is answered with (docs/formats.md). */
export const FORMAT_CONTENT_TYPES: Readonly<Record<OutputFormat, string>> = {
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};
