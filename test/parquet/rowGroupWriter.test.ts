import test from 'ava';
import { ByteWriter, type ColumnSource, ParquetWriter } from 'hyparquet-writer';
import { decimalField, enumField, eventTimeField, integerField } from '../../shared/engine/fieldSpec.ts';
import { createRowGroupWriter } from '../../shared/parquet/createRowGroupWriter.ts';
import { parquetSchema, type ParquetField } from '../../shared/parquet/parquetSchema.ts';
import { createRowGroupColumns } from '../../shared/parquet/rowGroupColumns.ts';
import { ROW_GROUP_ROWS, rowGroupSizes } from '../../shared/parquet/rowGroupSizes.ts';
import { readParquet } from './readParquet.ts';

// The row group writer must write what ParquetWriter.write writes, byte for byte, for every kind of column
// a run has: its INT64 PLAIN columns take a path of their own (shared/parquet/writePlainInt64Column.ts).
const FIELDS: readonly ParquetField[] = [
  integerField('sequence_id', 'repeats: a dictionary'),
  integerField('interaction_id', 'unique: PLAIN, chosen by the writer'),
  eventTimeField(),
  integerField('flag', 'one value in a group, else two'),
  enumField('state', ['Stable', 'Active', 'Closed'], 'a dictionary, always'),
  decimalField('amount', 2, 'a double'),
  { name: 'ratio', kind: 'float', decimals: 0, values: [], description: 'a double' },
  { ...enumField('scenario_event', ['crash', 'rally'], 'null outside events'), nullable: true },
  { ...integerField('seats', 'null at times'), nullable: true },
  { name: 'score', kind: 'float', decimals: 0, values: [], description: 'null at times', nullable: true },
];
// Three row groups: the small first one, a full one and a part.
const COUNT = 256 + ROW_GROUP_ROWS + 5_000;

/** The row's slots: the flag is 1 in the whole first group, 0/1 later; nulls (NaN, -1) where a field may have none. */
const rowOf = (k: number): number[] => [
  1 + Math.floor(k / 37),
  k + 1,
  1_767_225_600_000 + k * 1_337 - (k % 11),
  k < 256 ? 1 : k % 97 === 0 ? 1 : 0,
  (k * 7) % 3,
  ((k * 7_919) % 200_001) - 100_000,
  k % 5 === 0 ? -0 : (k * 0.37) % 13,
  k < 300 ? -1 : k % 9 === 0 ? k % 2 : -1,
  k % 13 === 0 ? Number.NaN : k % 6,
  k % 17 === 0 ? Number.NaN : k / 7,
];

const sourceOf = () => {
  const values = new Float64Array(FIELDS.length);
  let k = 0;
  return { values, next: () => values.set(rowOf(k++)) };
};

/** A whole file, each row group (its columns as writeParquetRecords fills them) written by `writeGroup`. */
const fileOf = (statistics: boolean, writeGroup: (writer: ParquetWriter) => (columns: ColumnSource[]) => void): Uint8Array => {
  const sink = new ByteWriter(1024);
  const writer = new ParquetWriter({ writer: sink, schema: parquetSchema(FIELDS), codec: 'UNCOMPRESSED', statistics, createdBy: 'test' });
  const columns = createRowGroupColumns(FIELDS, ROW_GROUP_ROWS);
  const source = sourceOf();
  const write = writeGroup(writer);
  for (const rows of rowGroupSizes(COUNT)) write(columns.fill(source, rows));
  void writer.finish();
  return sink.getBytes().slice();
};

for (const statistics of [false, true]) {
  test(`a file whose row groups the row group writer wrote is byte for byte ParquetWriter.write's (statistics ${statistics ? 'on' : 'off'})`, async (t) => {
    const expected = fileOf(statistics, (writer) => (columnData) => void writer.write({ columnData, rowGroupSize: columnData[0]!.data.length }));
    const actual = fileOf(statistics, createRowGroupWriter);
    t.is(actual.byteLength, expected.byteLength);
    t.true(Buffer.from(actual).equals(Buffer.from(expected)), 'the same bytes');
    // And it reads back as the rows it was given.
    const body = await readParquet(Buffer.from(actual));
    t.deepEqual(body.rowGroups, [256, ROW_GROUP_ROWS, 5_000]);
    t.is(body.records.length, COUNT);
    const last = body.records[COUNT - 1]!;
    const slots = rowOf(COUNT - 1);
    t.is(last.interaction_id, COUNT);
    t.is(last.sequence_id, slots[0]);
    t.is(last.flag, slots[3]);
  });
}
