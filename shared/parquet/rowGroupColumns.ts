import type { ColumnSource } from 'hyparquet-writer';
import type { ParquetField } from './parquetSchema.ts';

// Decimal slots hold value × 10^decimals as an integer; dividing by the exact power of ten gives the double
// nearest the printed decimal, which is what parsing the JSON number gives (both correctly rounded).
const POWERS_OF_TEN = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000];

/** A source of records in the engine's slot layout: `next()` writes the next record's fields into `values`. */
export interface SlotSource {
  readonly values: Float64Array;
  next(): void;
}

/**
 * One row group's columns, filled record by record from the engine's slots and handed to the writer.
 * Each column's buffer is allocated once per run and reused by every row group (the writer has encoded a
 * group before the next is filled), so a run's memory does not grow with its row groups.
 */
export interface RowGroupColumns {
  /** Fills the next `rows` records from `source` and returns the writer's view of them. */
  fill(source: SlotSource, rows: number): ColumnSource[];
}

const allEqual = (values: ArrayLike<unknown>, rows: number): boolean => {
  const first = values[0];
  for (let i = 1; i < rows; i++) if (values[i] !== first) return false;
  return true;
};

export const createRowGroupColumns = (fields: readonly ParquetField[], maxRows: number): RowGroupColumns => {
  // INT64 columns (integers, and engine 4's event_time in milliseconds) as bigints: the writer's PLAIN INT64
  // (and its dictionary) takes nothing else.
  const int64 = (field: ParquetField): boolean => field.kind === 'integer' || field.kind === 'timestamp';
  const numbers = fields.map((field) => (field.kind === 'enum' || int64(field) || field.nullable === true ? undefined : new Float64Array(maxRows)));
  const integers = fields.map((field) => (int64(field) && field.nullable !== true ? new BigInt64Array(maxRows) : undefined));
  // An account model's numbers may be null (NaN in the slot): a plain array holds the nulls (bigints for INT64).
  const nullableNumbers = fields.map((field) => (field.kind !== 'enum' && field.nullable === true ? new Array<number | bigint | null>(maxRows) : undefined));
  const bigIntegers = fields.map(int64);
  const strings = fields.map((field) => (field.kind === 'enum' ? new Array<string | null>(maxRows) : undefined));
  const divisors = Float64Array.from(fields, (field) => (field.kind === 'decimal' ? (POWERS_OF_TEN[field.decimals] ?? Number.NaN) : 1));
  const names = fields.map((field) => (field.kind === 'enum' ? field.values : undefined));
  const nullable = fields.map((field) => field.nullable === true);
  for (const field of fields) {
    if (field.kind === 'decimal' && !(field.decimals >= 1 && field.decimals <= 8)) throw new Error(`${field.name}: decimals must be 1..8`);
  }

  return {
    fill: (source, rows) => {
      const slots = source.values;
      const width = fields.length;
      for (let i = 0; i < rows; i++) {
        source.next();
        for (let j = 0; j < width; j++) {
          const slot = slots[j]!;
          const values = names[j];
          const integer = integers[j];
          const column = numbers[j];
          if (integer !== undefined) {
            integer[i] = BigInt(slot);
          } else if (column !== undefined) {
            // `+ 0` turns a -0 (a rounding of a tiny negative) into the 0 the JSON prints.
            column[i] = slot / divisors[j]! + 0;
          } else if (values === undefined) {
            nullableNumbers[j]![i] = slot !== slot ? null : bigIntegers[j] === true ? BigInt(slot) : slot + 0;
          } else {
            // A nullable field's slot holds no index of `values` (engine 3: -1) when the record has no value.
            strings[j]![i] = values[slot] ?? (nullable[j] === true ? null : missingValue(fields[j]!, slot));
          }
        }
      }
      return fields.map((field, j): ColumnSource => {
        const column = strings[j] ?? nullableNumbers[j];
        const data = column === undefined ? (integers[j] ?? numbers[j]!).subarray(0, rows) : rows === maxRows ? column : column.slice(0, rows);
        return { name: field.name, data, encoding: encodingOf(field, data, rows) };
      });
    },
  };
};

const missingValue = (field: ParquetField, slot: number): never => {
  throw new RangeError(`${field.name}: slot ${slot} is none of its values`);
};

/**
 * Encodings every mainstream reader decodes (pyarrow, DuckDB, polars, hyparquet and fastparquet; see
 * docs/bulk-data.md): PLAIN, and dictionaries with RLE indexes. Never DELTA_BINARY_PACKED, which
 * fastparquet reads wrong in the writer's DATA_PAGE_V2 pages. A column with two or more distinct values
 * in the group is dictionary-encoded (strings always, numbers when the writer finds it pays); a
 * single-valued REQUIRED one is PLAIN, because a one-entry dictionary's zero-bit indexes are a corner
 * some readers get wrong. A nullable string column with values is always a dictionary: fastparquet reads
 * the PLAIN strings of a V2 page with nulls wrong.
 */
const encodingOf = (field: ParquetField, data: ArrayLike<unknown>, rows: number): ColumnSource['encoding'] => {
  if (allEqual(data, rows)) return 'PLAIN';
  // event_time rarely repeats within a group: a dictionary would cost memory and save nothing.
  if (field.kind === 'timestamp') return 'PLAIN';
  return field.kind === 'enum' ? 'RLE_DICTIONARY' : undefined;
};
