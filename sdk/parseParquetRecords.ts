import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { SimulationRecord } from './SimulationRecord.ts';

// A TIMESTAMP column (event_time on engine 4) reads back as a Date; the JSON result writes it as the
// ISO 8601 string of the same millisecond (docs/formats.md), and records() promises the JSON's values.
const recordValue = (value: unknown): SimulationRecord[string] => {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  return value as SimulationRecord[string];
};

/**
 * The records of a Parquet body, the same values as in the JSON result (integers as numbers, not
 * bigints). A Parquet file says where its row groups are in a footer at its very end, so nothing can be
 * read before the whole body is in: the body is gathered (about an eighth of the JSON's size), then read
 * one row group at a time, so the records are built a row group at a time too.
 */
export const parseParquetRecords = async function* (chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SimulationRecord> {
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    length += chunk.byteLength;
  }
  const whole = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.byteLength;
  }
  parts.length = 0;
  const file = whole.buffer;
  const metadata = parquetMetadata(file);
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    const rows = await parquetReadObjects({ file, metadata, rowStart, rowEnd, rowFormat: 'object' });
    for (const row of rows) {
      const record: SimulationRecord = {};
      for (const [name, value] of Object.entries(row)) {
        record[name] = recordValue(value);
      }
      yield record;
    }
    rowStart = rowEnd;
  }
};
