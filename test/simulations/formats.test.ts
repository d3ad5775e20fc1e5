import test from 'ava';
import { PRESETS, type SimulationRecord, writeRecordsJson } from '../../shared/engine/index.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { writeParquetChunks } from '../../shared/parquet/writeParquetChunks.ts';
import { readParquet } from '../parquet/readParquet.ts';
import { postSimulation, rawData, type SimulationResponse } from './postSimulation.ts';

let app: TestApp;
let key: string;
// The tests run at once and each asks for every format at once: two accounts keep them within an
// enterprise account's concurrent simulations.
let secondKey: string;
// The preset x engine tests ask for four formats each at once: one account per engine keeps each account's
// sixteen within its plan's concurrent simulations.
const engineKeys = new Map<string, string>();

const enterpriseKey = async (): Promise<string> => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  return (await buildApiKey(app.services.pool, account.id)).key;
};

useFileStack(
  test,
  async (started) => {
    app = started;
    [key, secondKey] = await Promise.all([enterpriseKey(), enterpriseKey()]);
    for (const engine of ENGINES) engineKeys.set(engine.exact, await enterpriseKey());
  },
  { threads: 2 },
);

const ask = (body: Record<string, unknown>, accept?: string, as = key): Promise<SimulationResponse> =>
  postSimulation(app, body, { key: as, ...(accept === undefined ? {} : { headers: { Accept: accept } }) });

/** RFC 4180 as the service writes it: CRLF after every row, no quoted fields (values are plain identifiers). */
const parseCsv = (text: string): { header: string[]; rows: string[][] } => {
  const lines = text.split('\r\n');
  if (lines.pop() !== '') throw new Error('CSV does not end with CRLF');
  const [header = [], ...rows] = lines.map((line) => line.split(','));
  return { header, rows };
};

const ndjsonRecords = (text: string): SimulationRecord[] => {
  if (!text.endsWith('\n')) throw new Error('NDJSON does not end with a newline');
  return text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as SimulationRecord);
};

/** The JSON text of every value, as the CSV must print it; a null (engine 3's scenario_event) is an empty field. */
const asCells = (records: readonly SimulationRecord[], fields: readonly string[]): string[][] =>
  records.map((record) => fields.map((field) => {
    const value = record[field];
    return value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  }));

const identityHeaders = (response: SimulationResponse) => ({
  id: response.headers.get('simulation-id'),
  preset: response.headers.get('simulation-preset'),
  profile: response.headers.get('simulation-profile'),
  seed: response.headers.get('simulation-seed'),
  engine: response.headers.get('simulation-engine-version'),
});

// Every engine the service ships (docs/api.md#engine-versions): each writer prints each engine's records.
const ENGINES = [
  { requested: '1', exact: '1.0.0' },
  { requested: '2', exact: '2.0.0' },
  { requested: '3', exact: '3.0.0' },
] as const;

const PARQUET = 'application/vnd.apache.parquet';

/** The Parquet physical type each catalog field type is written as (docs/bulk-data.md#what-the-file-holds). */
const PARQUET_TYPES: Readonly<Record<string, string>> = { integer: 'INT64', number: 'DOUBLE', string: 'BYTE_ARRAY' };

for (const preset of PRESETS) for (const engine of ENGINES) {
  test(`${preset.name}, engine_version "${engine.requested}": JSON, NDJSON, CSV and Parquet carry the same records, with the Simulation-* headers on each`, async (t) => {
    const body = { preset: preset.name === 'mobile_app' ? 'mobile' : preset.name, num_interactions: 300, seed: 41, engine_version: engine.requested };
    const as = engineKeys.get(engine.exact);
    const [json, ndjson, csv, parquet] = await Promise.all([ask(body, '*/*', as), ask(body, 'application/x-ndjson', as), ask(body, 'text/csv', as), ask(body, PARQUET, as)]);
    t.is(json.body.metadata.service_version, engine.exact);
    // The engine that ran is the one asked for: its own bytes, as the engine prints them in one thread.
    const input = { preset: preset.name, profile: preset.default_profile, seed: 41, numInteractions: 300, serviceVersion: engine.exact };
    t.is(rawData(json.text), writeRecordsJson(input).toString('utf8'));
    for (const response of [json, ndjson, csv, parquet]) {
      t.is(response.status, 200, response.text.slice(0, 300));
      t.like(identityHeaders(response), { preset: preset.name, profile: preset.default_profile, seed: '41', engine: engine.exact });
      t.regex(response.headers.get('simulation-id') ?? '', /^[0-9a-f-]{36}$/);
    }
    t.is(json.headers.get('content-type'), 'application/json; charset=utf-8');
    t.is(json.headers.get('simulation-id'), json.body.simulation_id);
    t.is(ndjson.headers.get('content-type'), 'application/x-ndjson');
    t.is(csv.headers.get('content-type'), 'text/csv; charset=utf-8');

    const records = json.body.data as SimulationRecord[];
    t.is(records.length, 300);
    t.deepEqual(ndjsonRecords(ndjson.text), records);
    // The CSV header is the fields of the engine that ran (engine 3 adds scenario_event, last).
    const fields = preset.record_fields_by_engine[engine.exact]!;
    const table = parseCsv(csv.text);
    t.deepEqual(table.header, fields);
    t.deepEqual(table.rows, asCells(records, fields));

    // Parquet, read back by an independent reader: one column per record field in catalog order, typed by
    // the field's kind, and every value the JSON's (doubles bit for bit: deepEqual tells 0 from -0).
    t.is(parquet.headers.get('content-type'), PARQUET);
    const file = await readParquet(parquet.bytes);
    // record_fields_by_engine names each engine's fields; their types are the newest engine's (a field
    // keeps its type across engines).
    const fieldsOfEngine = fields.map((name) => preset.record_fields.find((field) => field.name === name)!);
    t.deepEqual(file.columns.map((column) => column.name), fieldsOfEngine.map((field) => field.name));
    t.deepEqual(file.columns.map((column) => column.type), fieldsOfEngine.map((field) => PARQUET_TYPES[field.type]));
    t.deepEqual(file.records, records);
    t.true(file.rowGroups.every((rows) => rows <= 65_536));
  });
}

for (const engine of ENGINES) test(`engine_version "${engine.requested}": records are identical in every format over seeds and sizes, streamed ones included`, async (t) => {
  // Sizes from one record to runs well past one chunk, so the streamed path is compared too.
  const shapes = [
    { preset: 'finance', seed: 0, n: 1 },
    { preset: 'healthcare', seed: 4_294_967_295, n: 17 },
    { preset: 'education', seed: 123_456, n: 2_500 },
    { preset: 'mobile_app', seed: 99, n: 6_000 },
    { preset: 'finance', seed: 7, n: 12_345 },
  ];
  for (const { preset, seed, n } of shapes) {
    const body = { preset, num_interactions: n, seed, engine_version: engine.requested };
    const [json, ndjson, csv, parquet] = await Promise.all([
      ask(body, '*/*', secondKey),
      ask(body, 'application/x-ndjson', secondKey),
      ask(body, 'text/csv', secondKey),
      ask(body, PARQUET, secondKey),
    ]);
    t.is(json.status, 200);
    t.is(json.body.metadata.service_version, engine.exact);
    for (const response of [json, ndjson, csv, parquet]) {
      t.is(response.headers.get('simulation-engine-version'), engine.exact);
    }
    const records = json.body.data as SimulationRecord[];
    t.is(records.length, n);
    t.deepEqual(ndjsonRecords(ndjson.text), records, `${preset} seed=${seed} n=${n}`);
    const fields = Object.keys(records[0] ?? {});
    t.deepEqual(parseCsv(csv.text).rows, asCells(records, fields), `${preset} seed=${seed} n=${n}`);
    const file = await readParquet(parquet.bytes);
    t.deepEqual(file.records, records, `parquet ${preset} seed=${seed} n=${n}`);
    t.true(file.rowGroups.every((rows) => rows <= 65_536));
  }
});

test('a 200,000-record Parquet run (streamed, many row groups) arrives byte for byte as its thread writes it', async (t) => {
  const response = await ask({ preset: 'finance', profile: 'active_trader', num_interactions: 200_000, seed: 8 }, PARQUET, secondKey);
  t.is(response.status, 200, response.text.slice(0, 300));
  t.is(response.headers.get('content-type'), PARQUET);
  const input = { preset: 'finance', profile: 'active_trader', seed: 8, numInteractions: 200_000, serviceVersion: response.headers.get('simulation-engine-version') ?? '' } as const;
  t.true(response.bytes.equals(Buffer.concat([...writeParquetChunks(input, { chunkBytes: Number.POSITIVE_INFINITY })])));
  const file = await readParquet(response.bytes);
  t.deepEqual(file.rowGroups, [256, 65_536, 65_536, 65_536, 3_136]);
  t.is(file.records.at(-1)?.interaction_id, 200_000);
});

test('quality values are honoured, and the most specific range decides a format\'s quality', async (t) => {
  const body = { preset: 'finance', num_interactions: 2, seed: 1 };
  const cases: [string, string][] = [
    ['text/csv;q=0.9, application/x-ndjson', 'application/x-ndjson'],
    ['text/csv, application/x-ndjson;q=0.5', 'text/csv; charset=utf-8'],
    ['*/*', 'application/json; charset=utf-8'],
    ['text/*', 'text/csv; charset=utf-8'],
    ['application/json;q=0, */*;q=0.1', 'application/x-ndjson'],
    ['application/xml, application/json;q=0.2', 'application/json; charset=utf-8'],
    ['TEXT/CSV', 'text/csv; charset=utf-8'],
    [PARQUET, PARQUET],
    ['application/json;q=0.5, application/vnd.apache.parquet', PARQUET],
    // A wildcard alone keeps answering text: Parquet comes last in the server's order.
    ['application/*', 'application/json; charset=utf-8'],
    ['application/json;q=0, application/x-ndjson;q=0, text/csv;q=0, */*', PARQUET],
  ];
  for (const [accept, contentType] of cases) {
    const response = await ask(body, accept, secondKey);
    t.is(response.status, 200, accept);
    t.is(response.headers.get('content-type'), contentType, accept);
  }
});

test('an Accept no format satisfies is 406 not_acceptable with the supported types, and the rate limiter does not count it', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 1 });
  const body = { preset: 'finance', num_interactions: 2 };
  for (const accept of ['application/xml', 'text/csv;q=0, application/json;q=0, application/x-ndjson;q=0, application/vnd.apache.parquet;q=0', 'image/*']) {
    const refused = await postSimulation(app, body, { key: caller.key, headers: { Accept: accept } });
    t.is(refused.status, 406, accept);
    t.is(refused.body.error.details.code, 'not_acceptable');
    t.deepEqual(refused.body.error.details.supported, ['application/json', 'application/x-ndjson', 'text/csv', PARQUET]);
    t.is(refused.headers.get('simulation-id'), null);
  }
  // The one request a minute is still there: none of the 406s used it.
  t.is((await postSimulation(app, body, { key: caller.key })).status, 200);
  t.is((await postSimulation(app, body, { key: caller.key })).status, 429);
});

test('an unauthenticated request is 401 before its Accept is judged', async (t) => {
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 2 }, { headers: { Accept: 'application/xml' } });
  t.is(response.status, 401);
});
