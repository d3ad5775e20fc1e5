import test from 'ava';
import { PRESETS, estimateRecordBytes, generateRecords, writeRecordChunks, writeRecordsJson } from '../../shared/engine/index.ts';
import { ENGINE_MODELS } from '../../shared/engine/presetModels.ts';
import { recordLayout } from '../../shared/engine/recordLayout.ts';
import type { SimulationInput, SimulationRecord, TextFormat } from '../../shared/engine/index.ts';

const joined = (input: SimulationInput, format: TextFormat, chunkBytes?: number, head?: string, tail?: string): { bytes: Buffer; chunks: number } => {
  const parts = [
    ...writeRecordChunks(input, format, {
      ...(chunkBytes === undefined ? {} : { chunkBytes }),
      ...(head === undefined ? {} : { head: Buffer.from(head) }),
      ...(tail === undefined ? {} : { tail: () => Buffer.from(tail) }),
    }),
  ];
  return { bytes: Buffer.concat(parts.map((part) => Buffer.from(part.buffer, part.byteOffset, part.byteLength))), chunks: parts.length };
};

/** Parses RFC 4180 CSV as the engine writes it (no quoted fields: names and values are plain identifiers). */
const parseCsv = (text: string): { header: string[]; rows: string[][] } => {
  const lines = text.split('\r\n');
  const trailing = lines.pop();
  if (trailing !== '') throw new Error('a CSV row does not end with CRLF');
  const [header, ...rows] = lines.map((line) => line.split(','));
  return { header: header ?? [], rows };
};

// A small deterministic generator of run shapes, so the property holds over many seeds and sizes.
const shapes = (count: number): { seed: number; n: number; chunkBytes: number }[] => {
  let x = 0x9e3779b9;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  return Array.from({ length: count }, () => ({ seed: next(), n: 1 + (next() % 3000), chunkBytes: 2_048 + (next() % 60_000) }));
};

// Every engine the service ships: the writers print each engine's records (docs/api.md#engine-versions).
const ENGINE_VERSIONS = ['1.0.0', '2.0.0', '3.0.0'] as const;

// Engine 3 runs with a scenario on every sequence, so scenario_event holds both values and nulls.
const scenarioOf = (serviceVersion: string, preset: (typeof PRESETS)[number]) =>
  serviceVersion === '3.0.0'
    ? { scenario: { events: [{ type: preset.scenario_events[0]!.type, sequence: 'all' as const, at_step: 2, duration: 3, intensity: 1 }] } }
    : {};

for (const serviceVersion of ENGINE_VERSIONS) test(`engine ${serviceVersion}: JSON chunks joined are writeRecordsJson byte for byte, for every preset and any chunk size`, (t) => {
  for (const preset of PRESETS) {
    for (const { seed, n, chunkBytes } of shapes(6)) {
      const input = { preset: preset.name, profile: preset.default_profile, seed, numInteractions: n, serviceVersion, ...scenarioOf(serviceVersion, preset) };
      const { bytes, chunks } = joined(input, 'json', chunkBytes);
      t.true(bytes.equals(writeRecordsJson(input)), `${preset.name} seed=${seed} n=${n} chunk=${chunkBytes}`);
      t.true(chunks >= 1);
    }
  }
});

for (const serviceVersion of ENGINE_VERSIONS) test(`engine ${serviceVersion}: NDJSON and CSV hold the same records as JSON, in order, for every preset and profile, seeds and sizes`, (t) => {
  for (const preset of PRESETS) {
    for (const profile of preset.supported_profiles) {
      for (const { seed, n, chunkBytes } of shapes(3)) {
        const input = { preset: preset.name, profile, seed, numInteractions: n, serviceVersion, ...scenarioOf(serviceVersion, preset) };
        const fields = preset.record_fields_by_engine[serviceVersion]!;
        // As JSON carries them: engine 2 can round a tiny negative decimal to -0, which JSON prints as 0.
        const records = JSON.parse(JSON.stringify(generateRecords(input))) as SimulationRecord[];
        const ndjson = joined(input, 'ndjson', chunkBytes).bytes.toString('utf8');
        t.true(ndjson.endsWith('\n'));
        const lines = ndjson.split('\n').slice(0, -1);
        t.is(lines.length, n);
        t.deepEqual(lines.map((line) => JSON.parse(line) as SimulationRecord), records);
        // Each line is the record exactly as it is printed inside the JSON array.
        t.is(`[${lines.join(',')}]`, writeRecordsJson(input).toString('utf8'));

        const csv = parseCsv(joined(input, 'csv', chunkBytes).bytes.toString('utf8'));
        t.deepEqual(csv.header, fields);
        t.is(csv.rows.length, n);
        // Numbers print exactly as in the JSON: the text of every cell is the JSON text of the value.
        // A null (scenario_event outside every event) is an empty field.
        const expected = records.map((record) => fields.map((name) => {
          const value = record[name];
          return value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
        }));
        t.deepEqual(csv.rows, expected, `${preset.name}/${profile} seed=${seed} n=${n}`);
      }
    }
  }
});

test('a run is cut into chunks near the chunk size, the head first and the tail last', (t) => {
  const input = { preset: 'finance' as const, profile: 'balanced_investor', seed: 7, numInteractions: 20_000 };
  const parts = [...writeRecordChunks(input, 'ndjson', { chunkBytes: 100_000, head: Buffer.from('HEAD'), tail: () => Buffer.from('TAIL') })];
  t.true(parts.length > 5);
  for (const part of parts.slice(0, -1)) {
    t.true(part.byteLength >= 100_000 && part.byteLength < 101_000, String(part.byteLength));
  }
  const text = Buffer.concat(parts).toString('utf8');
  t.true(text.startsWith('HEAD{"sequence_id":1,'));
  t.true(text.endsWith('}\nTAIL'));
  // A first chunk cut sooner when asked, the others at the chunk size.
  const early = [...writeRecordChunks(input, 'ndjson', { chunkBytes: 100_000, firstChunkBytes: 5_000 })];
  t.true(early[0]!.byteLength >= 5_000 && early[0]!.byteLength < 6_000, String(early[0]!.byteLength));
  t.true(early[1]!.byteLength >= 100_000);
  t.true(Buffer.concat(early).equals(Buffer.concat([...writeRecordChunks(input, 'ndjson')])));
  // One chunk when asked for no cut.
  t.is([...writeRecordChunks(input, 'csv', { chunkBytes: Number.POSITIVE_INFINITY })].length, 1);
});

test('record layouts are kept per engine model and per format', (t) => {
  const newest = ENGINE_MODELS[0];
  const oldest = ENGINE_MODELS.at(-1);
  const two = newest!.models.finance;
  const one = oldest!.models.finance;
  t.not(two, one);
  // Each engine version's model has its own layouts, one per format, built once.
  t.is(recordLayout(two, 'json'), recordLayout(two, 'json'));
  t.not(recordLayout(two, 'json'), recordLayout(one, 'json'));
  t.not(recordLayout(one, 'json'), recordLayout(one, 'csv'));
  t.not(recordLayout(one, 'ndjson'), recordLayout(one, 'csv'));
  // The streaming decision reads the layout of the engine that will run; an engine the service lacks is refused.
  const input = { preset: 'finance' as const, profile: 'balanced_investor', seed: 1, numInteractions: 10 };
  t.is(estimateRecordBytes({ ...input, serviceVersion: '1.0.0' }, 'csv'), recordLayout(one, 'csv').maxRecordBytes * 10);
  t.throws(() => estimateRecordBytes({ ...input, serviceVersion: '9.9.9' }, 'json'), { instanceOf: RangeError });
});
