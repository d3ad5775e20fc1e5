import { parseParquetRecords } from './parseParquetRecords.ts';
import type { SimulationRecord } from './SimulationRecord.ts';

export type { SimulationRecord } from './SimulationRecord.ts';

export type SimulationFormat = 'json' | 'ndjson' | 'csv' | 'parquet';

const decode = async function* (chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  // A multi-byte character may straddle two chunks; the streaming decoder keeps its first bytes.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of chunks) {
    yield decoder.decode(chunk, { stream: true });
  }
  yield decoder.decode();
};

const parseNdjson = async function* (chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SimulationRecord> {
  let pending = '';
  for await (const text of decode(chunks)) {
    pending += text;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line !== '') {
        yield JSON.parse(line) as SimulationRecord;
      }
      newline = pending.indexOf('\n');
    }
  }
  if (pending.trim() !== '') {
    yield JSON.parse(pending) as SimulationRecord;
  }
};

// A CSV field reads back as the JSON value it was printed from: numbers are printed exactly as in JSON,
// so an unquoted field that is a JSON number is that number; anything else (quoted or not) is a string.
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** RFC 4180 rows, quotes across chunk boundaries included. */
const parseCsvRows = async function* (chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Array<{ text: string; quoted: boolean }>> {
  let row: Array<{ text: string; quoted: boolean }> = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  let quoteSeen = false; // a quote inside quotes: either the end of the field or the first of a doubled pair
  for await (const text of decode(chunks)) {
    for (const char of text) {
      if (inQuotes) {
        if (quoteSeen) {
          quoteSeen = false;
          if (char === '"') {
            field += '"';
            continue;
          }
          inQuotes = false;
        } else if (char === '"') {
          quoteSeen = true;
          continue;
        } else {
          field += char;
          continue;
        }
      }
      if (char === '"' && field === '') {
        inQuotes = true;
        quoted = true;
      } else if (char === ',') {
        row.push({ text: field, quoted });
        field = '';
        quoted = false;
      } else if (char === '\n') {
        row.push({ text: field.endsWith('\r') && !quoted ? field.slice(0, -1) : field, quoted });
        yield row;
        row = [];
        field = '';
        quoted = false;
      } else if (char !== '\r' || !quoted) {
        field += char;
      }
    }
  }
  if (field !== '' || row.length > 0) {
    row.push({ text: field, quoted });
    yield row;
  }
};

const parseCsv = async function* (chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SimulationRecord> {
  let header: string[] | undefined;
  for await (const row of parseCsvRows(chunks)) {
    if (header === undefined) {
      header = row.map((cell) => cell.text);
      continue;
    }
    const record: SimulationRecord = {};
    row.forEach((cell, index) => {
      // An empty unquoted field is a null (engine 3's scenario_event outside an event), as in the JSON.
      record[header?.[index] ?? String(index)] = cell.quoted ? cell.text : cell.text === '' ? null : JSON_NUMBER.test(cell.text) ? Number(cell.text) : cell.text;
    });
    yield record;
  }
};

const parseJson = async function* (chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SimulationRecord> {
  // The JSON result is one document; its records are only known once it is whole.
  let text = '';
  for await (const part of decode(chunks)) {
    text += part;
  }
  yield* (JSON.parse(text) as { data: SimulationRecord[] }).data;
};

/**
 * The records of a simulation body in `format`, one at a time: NDJSON and CSV as the bytes arrive, JSON
 * and Parquet once the body is whole (each is one document whose structure closes at its end).
 */
export const parseRecordStream = (format: SimulationFormat, chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SimulationRecord> =>
  format === 'ndjson' ? parseNdjson(chunks)
  : format === 'csv' ? parseCsv(chunks)
  : format === 'parquet' ? parseParquetRecords(chunks)
  : parseJson(chunks);
