import test from 'ava';
import { Readable } from 'node:stream';
import { parseRecordStream, type SimulationRecord } from '../../sdk/parseRecordStream.ts';
import { writeRecordsJson } from '../../shared/engine/index.ts';
import { writeParquetChunks } from '../../shared/parquet/writeParquetChunks.ts';

/** The body cut into chunks of `size` bytes, so records, quotes and UTF-8 characters straddle chunks. */
const chunked = async function* (body: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(body);
  for (let at = 0; at < bytes.length; at += size) {
    // Each chunk on a later turn of the event loop, as from a socket.
    await new Promise<void>((resolve) => setImmediate(resolve));
    yield bytes.subarray(at, at + size);
  }
};

const collect = async (records: AsyncIterable<SimulationRecord>): Promise<SimulationRecord[]> => {
  const all: SimulationRecord[] = [];
  for await (const record of records) {
    all.push(record);
  }
  return all;
};

const RECORDS: SimulationRecord[] = [
  { sequence_id: 1, interaction_id: 1, state: 'Onboarding', event: 'app_open', session_duration_s: 12.5, revenue: 0, crash: 0 },
  { sequence_id: 1, interaction_id: 2, state: 'Engaged', event: 'purchase, "gold" – €', session_duration_s: 301, revenue: 4.99, crash: 0 },
  { sequence_id: 2, interaction_id: 3, state: 'Idle', event: 'line\nbreak', session_duration_s: 0, revenue: -0.5, crash: 1 },
];

const csvField = (value: number | string) => (typeof value === 'number' ? String(value) : /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

for (const size of [1, 3, 7, 4096]) {
  test(`NDJSON records come out one by one, in chunks of ${size} bytes`, async (t) => {
    const body = RECORDS.map((record) => `${JSON.stringify(record)}\n`).join('');
    t.deepEqual(await collect(parseRecordStream('ndjson', chunked(body, size))), RECORDS);
  });

  test(`RFC 4180 CSV reads back as the JSON records, quotes and numbers included, in chunks of ${size} bytes`, async (t) => {
    const header = Object.keys(RECORDS[0] ?? {});
    const body = [header.join(','), ...RECORDS.map((record) => header.map((name) => csvField(record[name] ?? '')).join(','))].map((line) => `${line}\r\n`).join('');
    t.deepEqual(await collect(parseRecordStream('csv', chunked(body, size))), RECORDS);
  });
}

test('the JSON result yields the records of its data', async (t) => {
  const body = JSON.stringify({ simulation_id: 'x', data: RECORDS, metadata: {} });
  t.deepEqual(await collect(parseRecordStream('json', chunked(body, 5))), RECORDS);
});

test('a body cut inside a record is an error, not a shorter list', async (t) => {
  const body = RECORDS.map((record) => `${JSON.stringify(record)}\n`).join('').slice(0, -20);
  await t.throwsAsync(collect(parseRecordStream('ndjson', chunked(body, 16))), { instanceOf: SyntaxError });
});

test('Parquet records, once the body is whole, are the JSON records of the same run, however the body was cut', async (t) => {
  const input = { preset: 'healthcare', profile: 'critical_care', seed: 3, numInteractions: 70_000, serviceVersion: '2.0.0' } as const;
  const json = JSON.parse(writeRecordsJson(input).toString('utf8')) as SimulationRecord[];
  const body = Buffer.concat([...writeParquetChunks(input, { chunkBytes: 256 * 1024 })]);
  for (const size of [1_000, 65_536]) {
    const cut = async function* (): AsyncGenerator<Uint8Array> {
      for (let at = 0; at < body.length; at += size) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        yield body.subarray(at, at + size);
      }
    };
    t.deepEqual(await collect(parseRecordStream('parquet', cut())), json, `chunks of ${size}`);
  }
});

test("engine 3's scenario_event reads back the same from every format: a type, or null (an empty CSV field, a Parquet null)", async (t) => {
  const input = {
    preset: 'finance',
    profile: 'balanced_investor',
    seed: 9,
    numInteractions: 80,
    serviceVersion: '3.0.0',
    scenario: { events: [{ type: 'market_crash', sequence: 1, at_step: 20, duration: 10, intensity: 1 }] },
  } as const;
  const json = JSON.parse(writeRecordsJson(input).toString('utf8')) as SimulationRecord[];
  t.deepEqual(json.filter((record) => record.scenario_event === 'market_crash').length, 10);
  t.true(json.some((record) => record.scenario_event === null));
  const header = Object.keys(json[0] ?? {});
  const csv = [header.join(','), ...json.map((record) => header.map((name) => (record[name] === null ? '' : String(record[name]))).join(','))]
    .map((line) => `${line}\r\n`)
    .join('');
  t.deepEqual(await collect(parseRecordStream('csv', chunked(csv, 97))), json);
  const parquet = Buffer.concat([...writeParquetChunks(input, { chunkBytes: Number.POSITIVE_INFINITY })]);
  t.deepEqual(await collect(parseRecordStream('parquet', Readable.from([parquet]))), json);
});
