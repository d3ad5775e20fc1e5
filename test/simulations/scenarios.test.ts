import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { type HttpAnswer, sendRequest } from '../bulk/httpRequest.ts';
import { runCli } from '../cli/spawnCli.ts';
import { getWithKey } from '../history/historyFixtures.ts';
import { readParquet } from '../parquet/readParquet.ts';
import { postSimulation } from './postSimulation.ts';
import { ACCEPT, CRASH, CRASH_ECHO, financeWithCrash as finance, type Format, postAs } from './scenarioFixtures.ts';

// Engine 3's scenarios through the HTTP API (docs/scenarios.md): runs at the bounds, the echo in the
// result and the history, replays of every kind byte for byte, the `scenario_event` field in every format,
// and the CLI's --scenario. The refusals are in scenarioValidation.test.ts, matched pairs in
// matchedPairs.test.ts.
let app: TestApp;
let key: string;

useFileStack(
  test,
  async (started) => {
    app = started;
    ({ key } = await buildCaller(app.services.pool, { max_concurrent_simulations: 32 }));
  },
  { threads: 2 },
);

const FORMATS = Object.keys(ACCEPT) as Format[];

const post = (body: unknown, format: Format = 'json', headers: Record<string, string> = {}): Promise<HttpAnswer> => postAs(app, key, body, format, headers);

const get = (url: string, format: Format, headers: Record<string, string> = {}): Promise<HttpAnswer> =>
  sendRequest(url, { headers: { Authorization: `Bearer ${key}`, Accept: ACCEPT[format], ...headers } });

test('the edges of every bound are accepted: 16 events, sequence "all", duration 1 and 1000, intensity 3 and just above 0', async (t) => {
  const events = [
    { type: 'volatility_regime', sequence: 'all', at_step: 1, duration: 1000, intensity: 3 },
    { type: 'rally', sequence: 2, at_step: 1, duration: 1, intensity: 0.001 },
    ...Array.from({ length: 14 }, (_, index) => ({ ...CRASH, sequence: index + 1 })),
  ];
  const response = await postSimulation(app, finance({ scenario: { events } }), { key });
  t.is(response.status, 200, response.text);
  t.deepEqual(response.body.scenario.events, events.map((event) => ({ intensity: 1, ...event })));
  // Each listed event either labelled records of its sequence (placed) or none (unplaced), never both.
  const { placed, unplaced } = response.body.scenario as { placed: { sequence: number; type: string }[]; unplaced: unknown[] };
  t.true(placed.some((event) => event.type === 'volatility_regime'));
  t.is(placed.filter((event) => event.type === 'market_crash').length + unplaced.filter((event) => (event as { type: string }).type === 'market_crash').length, 14);
});

test('the alias mobile takes mobile_app event types', async (t) => {
  const response = await postSimulation(app, finance({ preset: 'mobile', scenario: { events: [{ type: 'outage', sequence: 'all', at_step: 2, duration: 3 }] } }), { key });
  t.is(response.status, 200, response.text);
  t.is(response.body.preset, 'mobile_app');
  t.deepEqual(response.body.scenario.events, [{ type: 'outage', sequence: 'all', at_step: 2, duration: 3, intensity: 1 }]);
  t.like(response.body.scenario.placed[0], { type: 'outage', sequence: 1, at_step: 2, duration: 3, intensity: 1 });
});

// ---------------------------------------------------------------------------------------------------
// The echo, the history, replays

test('the result echoes the validated scenario (intensity filled, the wire order of keys) after data with placed and unplaced, and the history Run carries it', async (t) => {
  // Keys in another order than the wire's, intensity left out.
  const given = { events: [{ duration: 10, at_step: 20, sequence: 1, type: 'market_crash' }] };
  const first = await post(finance({ scenario: given }));
  t.is(first.status, 200, first.bytes.toString());
  t.true(first.bytes.toString().includes(`,"seed":7,"data":[`));
  const placed = '"placed":[{"type":"market_crash","sequence":1,"at_step":20,"duration":10,"intensity":1}],"unplaced":[]';
  t.true(first.bytes.toString().includes(`],"scenario":${CRASH_ECHO.slice(0, -1)},${placed}},"metadata":{`));
  const run = await getWithKey(app, `/v1/simulations/${first.json.simulation_id}`, key);
  t.is(run.status, 200);
  t.deepEqual(run.body.scenario, JSON.parse(CRASH_ECHO));
  t.is(JSON.stringify(run.body.scenario), CRASH_ECHO);
  const list = await getWithKey(app, '/v1/simulations?limit=100', key);
  t.deepEqual(list.body.data.find((each: { simulation_id: string }) => each.simulation_id === first.json.simulation_id)?.scenario, JSON.parse(CRASH_ECHO));
});

test('a run without a scenario echoes null, on engine 3 and on engine 2, and its Run says null', async (t) => {
  for (const engine of ['3', '2']) {
    const first = await post(finance({ engine_version: engine, scenario: undefined }));
    t.is(first.status, 200, first.bytes.toString());
    t.true(first.bytes.toString().includes(',"seed":7,"data":['));
    t.true(first.bytes.toString().includes('],"scenario":null,"metadata":{'));
    const run = await getWithKey(app, `/v1/simulations/${first.json.simulation_id}`, key);
    t.is(run.body.scenario, null);
  }
});

const withoutComputeMs = (bytes: Buffer): string => bytes.toString('utf8').replace(/"compute_ms":\d+/, '"compute_ms":0');

for (const format of FORMATS) {
  test(`${format}: an idempotent replay, a history replay and a download link give the scenario run's body byte for byte`, async (t) => {
    const body = finance({ num_interactions: 1500, scenario: { events: [CRASH, { type: 'volatility_regime', sequence: 'all', at_step: 100, duration: 50, intensity: 2.5 }] } });
    const idempotencyKey = `scenario-${format}-${Math.random()}`;
    const first = await post(body, format, { 'Idempotency-Key': idempotencyKey });
    t.is(first.status, 200, first.bytes.toString());
    const id = first.headers['simulation-id']!;

    const again = await post(body, format, { 'Idempotency-Key': idempotencyKey });
    t.is(again.status, 200);
    t.is(again.headers['idempotent-replayed'], 'true');
    t.is(again.headers['simulation-id'], id);
    // An idempotent JSON replay may differ in metadata.compute_ms only (docs/api.md#safe-retries-idempotency-key).
    if (format === 'json') {
      t.is(withoutComputeMs(again.bytes), withoutComputeMs(first.bytes));
    } else {
      t.true(again.bytes.equals(first.bytes), 'idempotent replay');
    }

    const replay = await get(`${app.url}/v1/simulations/${id}/records`, format);
    t.is(replay.status, 200);
    t.true(replay.bytes.equals(first.bytes), 'history replay');

    const link = await sendRequest(`${app.url}/v1/simulations/${id}/links`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: JSON.stringify({ format }),
    });
    t.is(link.status, 201, link.bytes.toString());
    const downloaded = await sendRequest(`${app.url}${new URL(link.json.url as string).pathname}`);
    t.is(downloaded.status, 200);
    t.true(downloaded.bytes.equals(first.bytes), 'download link');
  });
}

test('the same Idempotency-Key with another scenario is 422 idempotency_key_reused; without one too', async (t) => {
  const idempotencyKey = `scenario-reuse-${Math.random()}`;
  const first = await post(finance(), 'json', { 'Idempotency-Key': idempotencyKey });
  t.is(first.status, 200);
  for (const other of [finance({ scenario: { events: [{ ...CRASH, at_step: 21 }] } }), finance({ scenario: undefined })]) {
    const reused = await post(other, 'json', { 'Idempotency-Key': idempotencyKey });
    t.is(reused.status, 422);
    t.is(reused.json.error.details.code, 'idempotency_key_reused');
  }
});

// ---------------------------------------------------------------------------------------------------
// scenario_event in every format

/** RFC 4180 as the service writes it: CRLF after every row; records are plain identifiers and numbers. */
const csvRows = (text: string): string[][] => {
  const lines = text.split('\r\n');
  lines.pop();
  return lines.map((line) => line.split(','));
};

test('engine 3 records end with scenario_event in every format: the type inside the window, null (CSV: empty) outside', async (t) => {
  const body = finance({ num_interactions: 60 });
  const [json, ndjson, csv, parquet] = await Promise.all(FORMATS.map((format) => post(body, format)));
  const records = json!.json.data as Record<string, unknown>[];
  t.is(records.length, 60);
  for (const record of records) {
    t.is(Object.keys(record).at(-1), 'scenario_event');
  }
  // The window: sequence 1's records from its 20th, ten of them unless its episode ends first. Sequence 1
  // opens the run, so its nth record is the run's nth.
  const first = records.filter((record) => record.sequence_id === 1).length;
  t.true(first >= 20, `sequence 1 lasts ${first} records`);
  t.deepEqual(
    records.map((record, index) => [index + 1, record.scenario_event]).filter(([, event]) => event !== null),
    Array.from({ length: Math.min(10, first - 19) }, (_, index) => [20 + index, 'market_crash']),
  );
  const lines = ndjson!.bytes.toString().split('\n').slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
  t.deepEqual(lines, records);

  const [header, ...rows] = csvRows(csv!.bytes.toString());
  t.is(header?.at(-1), 'scenario_event');
  t.deepEqual(
    rows.map((row) => row.at(-1)),
    records.map((record) => (record.scenario_event === null ? '' : record.scenario_event)),
  );

  const table = await readParquet(parquet!.bytes);
  t.deepEqual(table.columns.at(-1), { name: 'scenario_event', type: 'BYTE_ARRAY', repetition: 'OPTIONAL', convertedType: 'UTF8' });
  t.deepEqual(table.records.map((record) => record.scenario_event), records.map((record) => record.scenario_event));
});

test('engine 2 records have no scenario_event in any format', async (t) => {
  const body = finance({ engine_version: '2', scenario: undefined });
  const [json, ndjson, csv, parquet] = await Promise.all(FORMATS.map((format) => post(body, format)));
  t.false((json!.json.data as Record<string, unknown>[]).some((record) => 'scenario_event' in record));
  t.false(ndjson!.bytes.toString().includes('scenario_event'));
  t.false(csvRows(csv!.bytes.toString())[0]?.includes('scenario_event') ?? true);
  t.false((await readParquet(parquet!.bytes)).columns.some((column) => column.name === 'scenario_event'));
});

// ---------------------------------------------------------------------------------------------------
// The CLI

test('cli simulate --scenario takes the scenario as JSON or @file and writes the API body byte for byte', async (t) => {
  const body = finance({ num_interactions: 80, seed: 11 });
  const api = await post(body, 'ndjson');
  const scenario = JSON.stringify(body.scenario);
  const args = ['simulate', '--preset', 'finance', '-n', '80', '--seed', '11', '--engine-version', '3', '--format', 'ndjson'];
  const inline = await runCli([...args, '--scenario', scenario], { url: app.url, key });
  t.is(inline.code, 0, inline.stderr);
  t.true(inline.stdout.equals(api.bytes));
  // The history table names a run's event types.
  const history = await runCli(['history', '--limit', '100'], { url: app.url, key });
  t.is(history.code, 0, history.stderr);
  const [header, ...lines] = history.stdout.toString().split('\n');
  t.regex(header ?? '', /SCENARIO\s*$/);
  t.regex(lines.find((line) => line.includes(api.headers['simulation-id']!)) ?? '', /\smarket_crash\s*$/);

  const directory = await mkdtemp(path.join(tmpdir(), 'bss-scenario-'));
  try {
    const file = path.join(directory, 'crash.json');
    await writeFile(file, scenario);
    const fromFile = await runCli([...args, '--scenario', `@${file}`], { url: app.url, key });
    t.is(fromFile.code, 0, fromFile.stderr);
    t.true(fromFile.stdout.equals(api.bytes));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('cli simulate --scenario exits 2 with a clear message for a value that is not a scenario, and 1 for one the service refuses', async (t) => {
  const args = ['simulate', '--preset', 'finance', '-n', '5'];
  for (const [value, message] of [
    ['{"events": [', /--scenario.*not JSON/s],
    ['[]', /--scenario.*"events" array/s],
    ['{"type": "market_crash"}', /--scenario.*"events" array/s],
    ['@/nonexistent/crash.json', /--scenario.*cannot read \/nonexistent\/crash\.json/s],
  ] as const) {
    const run = await runCli([...args, '--scenario', value], { url: app.url, key });
    t.is(run.code, 2, `${value}: ${run.stderr}`);
    t.regex(run.stderr, message);
  }
  const refused = await runCli([...args, '--engine-version', '2', '--scenario', JSON.stringify({ events: [CRASH] })], { url: app.url, key });
  t.is(refused.code, 1, refused.stderr);
  t.regex(refused.stderr, /validation_failed/);
});
