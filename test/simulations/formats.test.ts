import test from 'ava';
import { PRESETS, type SimulationRecord, writeRecordsJson } from '../../shared/engine/index.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { postSimulation, rawData, type SimulationResponse } from './postSimulation.ts';

let app: TestApp;
let key: string;

useFileStack(
  test,
  async (started) => {
    app = started;
    const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
    ({ key } = await buildApiKey(app.services.pool, account.id));
  },
  { threads: 2 },
);

const ask = (body: Record<string, unknown>, accept?: string): Promise<SimulationResponse> =>
  postSimulation(app, body, { key, ...(accept === undefined ? {} : { headers: { Accept: accept } }) });

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

/** The JSON text of every value, as the CSV must print it. */
const asCells = (records: readonly SimulationRecord[], fields: readonly string[]): string[][] =>
  records.map((record) => fields.map((field) => {
    const value = record[field];
    return typeof value === 'string' ? value : JSON.stringify(value);
  }));

const identityHeaders = (response: SimulationResponse) => ({
  id: response.headers.get('simulation-id'),
  preset: response.headers.get('simulation-preset'),
  profile: response.headers.get('simulation-profile'),
  seed: response.headers.get('simulation-seed'),
  engine: response.headers.get('simulation-engine-version'),
});

// Every engine the service ships (DECISIONS "Engine versions"): each writer prints each engine's records.
const ENGINES = [
  { requested: '1', exact: '1.0.0' },
  { requested: '2', exact: '2.0.0' },
] as const;

for (const preset of PRESETS) for (const engine of ENGINES) {
  test(`${preset.name}, engine_version "${engine.requested}": JSON, NDJSON and CSV carry the same records, with the Simulation-* headers on each`, async (t) => {
    const body = { preset: preset.name === 'mobile_app' ? 'mobile' : preset.name, num_interactions: 300, seed: 41, engine_version: engine.requested };
    const [json, ndjson, csv] = await Promise.all([ask(body), ask(body, 'application/x-ndjson'), ask(body, 'text/csv')]);
    t.is(json.body.metadata.service_version, engine.exact);
    // The engine that ran is the one asked for: its own bytes, as the engine prints them in one thread.
    const input = { preset: preset.name, profile: preset.default_profile, seed: 41, numInteractions: 300, serviceVersion: engine.exact };
    t.is(rawData(json.text), writeRecordsJson(input).toString('utf8'));
    for (const response of [json, ndjson, csv]) {
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
    const fields = preset.record_fields.map((field) => field.name);
    const table = parseCsv(csv.text);
    t.deepEqual(table.header, fields);
    t.deepEqual(table.rows, asCells(records, fields));
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
    const [json, ndjson, csv] = await Promise.all([ask(body, '*/*'), ask(body, 'application/x-ndjson'), ask(body, 'text/csv')]);
    t.is(json.status, 200);
    t.is(json.body.metadata.service_version, engine.exact);
    for (const response of [json, ndjson, csv]) {
      t.is(response.headers.get('simulation-engine-version'), engine.exact);
    }
    const records = json.body.data as SimulationRecord[];
    t.is(records.length, n);
    t.deepEqual(ndjsonRecords(ndjson.text), records, `${preset} seed=${seed} n=${n}`);
    const fields = Object.keys(records[0] ?? {});
    t.deepEqual(parseCsv(csv.text).rows, asCells(records, fields), `${preset} seed=${seed} n=${n}`);
  }
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
  ];
  for (const [accept, contentType] of cases) {
    const response = await ask(body, accept);
    t.is(response.status, 200, accept);
    t.is(response.headers.get('content-type'), contentType, accept);
  }
});

test('an Accept no format satisfies is 406 not_acceptable with the supported types, and the rate limiter does not count it', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 1 });
  const body = { preset: 'finance', num_interactions: 2 };
  for (const accept of ['application/xml', 'text/csv;q=0, application/json;q=0, application/x-ndjson;q=0', 'image/*']) {
    const refused = await postSimulation(app, body, { key: caller.key, headers: { Accept: accept } });
    t.is(refused.status, 406, accept);
    t.is(refused.body.error.details.code, 'not_acceptable');
    t.deepEqual(refused.body.error.details.supported, ['application/json', 'application/x-ndjson', 'text/csv']);
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
