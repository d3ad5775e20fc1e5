import test from 'ava';
import { createSimulation } from '../../shared/engine/createSimulation.ts';
import { decimalField, enumField, integerField } from '../../shared/engine/fieldSpec.ts';
import { writeDecimal } from '../../shared/engine/writeDecimal.ts';
import { type ParquetField } from '../../shared/parquet/parquetSchema.ts';
import { FIRST_ROW_GROUP_ROWS, ROW_GROUP_ROWS } from '../../shared/parquet/rowGroupSizes.ts';
import { writeParquetChunks } from '../../shared/parquet/writeParquetChunks.ts';
import { writeParquetRecords } from '../../shared/parquet/writeParquetRecords.ts';
import { readParquet } from './readParquet.ts';

const CHUNK = 256 * 1024;

/** A slot source over precomputed rows, counting the records taken from it. */
const slotSource = (rows: readonly (readonly number[])[]) => {
  const values = new Float64Array(rows[0]?.length ?? 0);
  let taken = 0;
  return {
    values,
    next: () => {
      values.set(rows[taken]!);
      taken++;
    },
    taken: () => taken,
  };
};

const whole = (chunks: Iterable<Uint8Array>): Buffer => Buffer.concat([...chunks]);

// Engine 3's record, in miniature: its last field `scenario_event` is a string or null, its slot -1 for null.
const EVENTS = ['market_crash', 'volatility_regime', 'rally'];
const SCENARIO_FIELDS: readonly ParquetField[] = [
  integerField('sequence_id', 'sequence'),
  integerField('interaction_id', 'interaction'),
  enumField('state', ['Stable', 'Active'], 'state'),
  decimalField('daily_return', 6, 'return'),
  { ...enumField('scenario_event', EVENTS, 'the scenario event active at this record, else null'), nullable: true },
];

test('a nullable string field is an optional column that reads back null where the record has no value, whatever its row group holds', async (t) => {
  // Row group 1: no event at all; group 2: one event type among nulls; group 3: three types among nulls.
  const secondGroupEnd = FIRST_ROW_GROUP_ROWS + ROW_GROUP_ROWS;
  const eventAt = (i: number): number => (i <= FIRST_ROW_GROUP_ROWS ? -1 : i <= secondGroupEnd ? (i % 7 === 0 ? 2 : -1) : i % 3 === 0 ? -1 : (i % 11) % 3);
  const rows = Array.from({ length: 80_000 }, (_, k) => {
    const i = k + 1;
    return [1 + Math.floor(k / 252), i, k % 5 === 0 ? 1 : 0, ((k * 7_919) % 40_001) - 20_000, eventAt(i)];
  });
  const body = await readParquet(whole(writeParquetRecords({ fields: SCENARIO_FIELDS, source: slotSource(rows), count: rows.length }, { chunkBytes: CHUNK })));
  t.deepEqual(body.columns.map((column) => [column.name, column.type, column.repetition]), [
    ['sequence_id', 'INT64', 'REQUIRED'],
    ['interaction_id', 'INT64', 'REQUIRED'],
    ['state', 'BYTE_ARRAY', 'REQUIRED'],
    ['daily_return', 'DOUBLE', 'REQUIRED'],
    ['scenario_event', 'BYTE_ARRAY', 'OPTIONAL'],
  ]);
  t.is(body.columns[4]?.convertedType, 'UTF8');
  t.deepEqual(body.rowGroups, [FIRST_ROW_GROUP_ROWS, ROW_GROUP_ROWS, 80_000 - secondGroupEnd]);
  const expected = rows.map(([sequence, interaction, state, scaled, event]) => ({
    sequence_id: sequence,
    interaction_id: interaction,
    state: state === 1 ? 'Active' : 'Stable',
    daily_return: JSON.parse(new TextDecoder().decode(printed(scaled!, 6))) as number,
    scenario_event: EVENTS[event!] ?? null,
  }));
  t.deepEqual(body.records, expected);
  t.true(body.records.some((record) => record.scenario_event === null) && body.records.some((record) => record.scenario_event === 'rally'));
});

test('a string field that is not nullable refuses a slot that holds no value instead of writing a null', (t) => {
  const fields = [integerField('sequence_id', 's'), enumField('state', ['Stable'], 'state')];
  t.throws(() => whole(writeParquetRecords({ fields, source: slotSource([[1, -1]]), count: 1 }, { chunkBytes: CHUNK })), { instanceOf: RangeError });
});

/** The engine's own printer: the bytes of `scaled / 10^decimals` in the JSON. */
const printed = (scaled: number, decimals: number): Uint8Array => {
  const view = new DataView(new ArrayBuffer(64));
  return new Uint8Array(view.buffer, 0, writeDecimal(view, 0, scaled, decimals));
};

test('every decimal column holds exactly the double that parsing its printed JSON number gives, at every scale the engine uses', async (t) => {
  // Scaled integers over every magnitude up to 2^52 (the printer's exact range), both signs, -0 included.
  let state = 0x2545f491;
  const draw = (): number => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state;
  };
  const magnitudes = [1, 9, 99, 1e3, 1e5, 1e7, 2 ** 31, 1e12, 2 ** 52];
  const rows: number[][] = [];
  for (let k = 0; k < 30_000; k++) {
    const limit = magnitudes[k % magnitudes.length]!;
    const row = [k + 1];
    for (let decimals = 1; decimals <= 8; decimals++) {
      const magnitude = Math.floor(((draw() * 2 ** 21 + (draw() >>> 11)) / 2 ** 53) * limit);
      row.push(k === 0 ? -0 : draw() % 2 === 0 ? -magnitude : magnitude);
    }
    rows.push(row);
  }
  const fields = [integerField('sequence_id', 's'), ...Array.from({ length: 8 }, (_, d) => decimalField(`d${d + 1}`, d + 1, `${d + 1} decimals`))];
  const body = await readParquet(whole(writeParquetRecords({ fields, source: slotSource(rows), count: rows.length }, { chunkBytes: CHUNK })));
  let checked = 0;
  rows.forEach((row, k) => {
    for (let decimals = 1; decimals <= 8; decimals++) {
      const fromJson = JSON.parse(new TextDecoder().decode(printed(row[decimals]!, decimals))) as number;
      const fromParquet = body.records[k]![`d${decimals}`];
      // Object.is: the same double, bit for bit, and 0 rather than -0 where the JSON prints 0.
      if (!Object.is(fromParquet, fromJson)) t.fail(`row ${k}, ${decimals} decimals: ${String(fromParquet)} != ${fromJson}`);
      checked++;
    }
  });
  t.is(checked, 240_000);
  t.true(Object.is(body.records[0]!.d3, 0));
});

const FINANCE = { preset: 'finance', profile: 'balanced_investor', seed: 2026, numInteractions: 200_000, serviceVersion: '2.0.0' } as const;

test('a 200,000-record run is made a row group at a time: first bytes after one small row group, never more than one row group ahead of its output', async (t) => {
  // The real engine, counted: the records the simulator made when each chunk was handed on.
  const { model, simulator, count } = createSimulation(FINANCE);
  let made = 0;
  const source = {
    values: simulator.values,
    next: () => {
      made++;
      simulator.next();
    },
  };
  const madeAtChunk: number[] = [];
  const chunks: Uint8Array[] = [];
  for (const chunk of writeParquetRecords({ fields: model.fields, source, count }, { chunkBytes: CHUNK })) {
    madeAtChunk.push(made);
    chunks.push(chunk);
  }
  t.true(chunks.length >= 8, `${chunks.length} chunks`);
  t.is(madeAtChunk[0], FIRST_ROW_GROUP_ROWS);
  for (const [index, chunk] of chunks.entries()) {
    t.true(chunk.byteLength <= CHUNK);
    // Each chunk owns its whole buffer, so it can be transferred to another thread alone.
    t.is(chunk.byteOffset, 0);
    t.is(chunk.buffer.byteLength, chunk.byteLength);
    // What is held back (made but not yet handed on) is never more than the row group being written.
    t.true(madeAtChunk[index]! <= FIRST_ROW_GROUP_ROWS + ROW_GROUP_ROWS * (index + 1), `chunk ${index}`);
  }
  const body = await readParquet(Buffer.concat(chunks));
  t.deepEqual(body.rowGroups, [256, 65_536, 65_536, 65_536, 3_136]);
  t.true(body.rowGroups.every((rows) => rows <= 65_536));
  t.is(body.records.length, 200_000);
  t.is(body.records.at(-1)?.interaction_id, 200_000);
});

test('the same inputs give the same bytes on every call, however they are cut into chunks', (t) => {
  const input = { ...FINANCE, numInteractions: 70_000 };
  const lean = [...writeParquetChunks(input, { chunkBytes: Number.POSITIVE_INFINITY })];
  t.is(lean.length, 1);
  const streamed = whole(writeParquetChunks(input, { chunkBytes: CHUNK }));
  const tiny = whole(writeParquetChunks(input, { chunkBytes: 1_000 }));
  t.true(streamed.equals(Buffer.from(lean[0]!)));
  t.true(tiny.equals(streamed));
  t.is(streamed.subarray(0, 4).toString('latin1'), 'PAR1');
  t.is(streamed.subarray(-4).toString('latin1'), 'PAR1');
});

test("the file names what made its records in its key-value metadata, and nothing that varies between calls", async (t) => {
  const body = await readParquet(whole(writeParquetChunks({ ...FINANCE, numInteractions: 10 }, { chunkBytes: CHUNK })));
  t.deepEqual(body.metadata.key_value_metadata, [
    { key: 'bss.preset', value: 'finance' },
    { key: 'bss.profile', value: 'balanced_investor' },
    { key: 'bss.seed', value: '2026' },
    { key: 'bss.num_interactions', value: '10' },
    { key: 'bss.engine_version', value: '2.0.0' },
  ]);
  t.is(body.metadata.created_by, 'behavioral-simulation-service');
});

// docs/bulk-data.md#what-the-file-holds, a file for every reader: fastparquet reads DELTA_BINARY_PACKED
// INT64 and the PLAIN strings of a nullable column wrong in DATA_PAGE_V2 pages; pyarrow, DuckDB, polars
// and hyparquet read everything. Only the encodings all of them decode are written.
test('every column chunk is written in encodings every mainstream reader decodes: PLAIN or a dictionary, never delta-packed; a nullable column with values is a dictionary', async (t) => {
  const events = [{ type: 'market_crash', sequence: 'all' as const, at_step: 30, duration: 7, intensity: 1 }];
  const input = { preset: 'finance' as const, profile: 'balanced_investor', seed: 3, numInteractions: 70_000, scenario: { events } };
  const file = await readParquet(whole(writeParquetChunks(input, { chunkBytes: CHUNK })));
  t.true(file.rowGroups.length >= 3);
  const decodable = new Set(['PLAIN', 'RLE', 'RLE_DICTIONARY']);
  for (const [group, rowGroup] of file.metadata.row_groups.entries()) {
    for (const chunk of rowGroup.columns) {
      const name = chunk.meta_data?.path_in_schema.join('.') ?? '';
      const encodings = chunk.meta_data?.encodings ?? [];
      t.deepEqual(encodings.filter((encoding) => !decodable.has(encoding)), [], `row group ${group}, ${name}: ${encodings.join(', ')}`);
    }
  }
  // The event labels records in every row group: each group's scenario_event holds values among its nulls.
  const scenarioEvents = file.metadata.row_groups.map((rowGroup) => rowGroup.columns.at(-1)?.meta_data?.encodings ?? []);
  t.true(file.records.some((record, index) => index > FIRST_ROW_GROUP_ROWS + ROW_GROUP_ROWS && record.scenario_event === 'market_crash'));
  for (const encodings of scenarioEvents) {
    t.true(encodings.includes('RLE_DICTIONARY'), encodings.join(', '));
  }
});
