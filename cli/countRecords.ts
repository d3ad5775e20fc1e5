import type { SimulationFormat } from '../sdk/index.ts';

const NEWLINE = 0x0a;
// Every JSON record has exactly one `interaction_id` member, and no value contains the text.
const JSON_MARK = '"interaction_id":';

/**
 * Counts the records in a body as its bytes go by, without parsing it, for the progress bar: lines in
 * NDJSON, lines but the header in CSV, `interaction_id` members in JSON (a mark may straddle two chunks).
 * Parquet's row counts are in its footer, the last bytes: its bar shows the bytes and completes at the end.
 */
export const createRecordCounter = (format: SimulationFormat): ((chunk: Uint8Array) => number) => {
  if (format === 'parquet') {
    return () => 0;
  }
  if (format !== 'json') {
    let headerPending = format === 'csv';
    return (chunk) => {
      let lines = 0;
      for (const byte of chunk) {
        if (byte === NEWLINE) {
          lines += 1;
        }
      }
      if (headerPending && lines > 0) {
        headerPending = false;
        lines -= 1;
      }
      return lines;
    };
  }
  let tail = '';
  return (chunk) => {
    // latin1 maps bytes one to one: the ASCII mark is found whatever UTF-8 surrounds it.
    const text = tail + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    let count = 0;
    for (let at = text.indexOf(JSON_MARK); at !== -1; at = text.indexOf(JSON_MARK, at + JSON_MARK.length)) {
      count += 1;
    }
    tail = text.slice(-(JSON_MARK.length - 1));
    return count;
  };
};
