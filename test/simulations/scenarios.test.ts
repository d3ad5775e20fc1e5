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

// Engine 3's scenarios through the HTTP API (DECISIONS "Engine 3"): the request's validation, the echo in
// the result and the history, replays of every kind byte for byte, the `scenario_event` field in every
// format, a matched pair of runs, and the CLI's --scenario.
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

const ACCEPT = { json: 'application/json', ndjson: 'application/x-ndjson', csv: 'text/csv', parquet: 'application/vnd.apache.parquet' } as const;
type Format = keyof typeof ACCEPT;
const FORMATS = Object.keys(ACCEPT) as Format[];

const CRASH = { type: 'market_crash', sequence: 1, at_step: 20, duration: 10 };
/** The echo of CRASH: the validated object, its keys in the wire's order, intensity filled in. */
const CRASH_ECHO = '{"events":[{"type":"market_crash","sequence":1,"at_step":20,"duration":10,"intensity":1}]}';

const finance = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  preset: 'finance',
  num_interactions: 50,
  seed: 7,
  engine_version: '3',
  scenario: { events: [CRASH] },
  ...extra,
});

/** POST /v1/simulations over node:http (no coding asked for or decoded), in a format, with optional headers. */
const post = (body: unknown, format: Format = 'json', headers: Record<string, string> = {}): Promise<HttpAnswer> =>
  sendRequest(`${app.url}/v1/simulations`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, Accept: ACCEPT[format], ...headers },
    body: JSON.stringify(body),
  });

const get = (url: string, format: Format, headers: Record<string, string> = {}): Promise<HttpAnswer> =>
  sendRequest(url, { headers: { Authorization: `Bearer ${key}`, Accept: ACCEPT[format], ...headers } });

type Issue = { path: string; message: string };

const issuesOf = async (body: unknown): Promise<{ status: number; code: unknown; issues: Issue[] }> => {
  const response = await postSimulation(app, body, { key });
  return { status: response.status, code: response.body?.error?.details?.code, issues: response.body?.error?.details?.issues ?? [] };
};

// ---------------------------------------------------------------------------------------------------
// Validation

const withEvent = (change: Record<string, unknown>, drop: readonly string[] = []): Record<string, unknown> => {
  const event: Record<string, unknown> = { ...CRASH, ...change };
  for (const name of drop) delete event[name];
  return finance({ scenario: { events: [event] } });
};

const INVALID: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
  ['an unknown field in an event', withEvent({ strength: 2 }), 'scenario.events.0.strength'],
  ['an unknown field in the scenario', finance({ scenario: { events: [CRASH], name: 'crash' } }), 'scenario.name'],
  ["another preset's event type", withEvent({ type: 'fatigue' }), 'scenario.events.0.type'],
  ['an event type no preset has', withEvent({ type: 'meteor_strike' }), 'scenario.events.0.type'],
  ["finance's event type on the alias mobile", finance({ preset: 'mobile', scenario: { events: [CRASH] } }), 'scenario.events.0.type'],
  ['a type that is not a string', withEvent({ type: 3 }), 'scenario.events.0.type'],
  ['no type', withEvent({}, ['type']), 'scenario.events.0.type'],
  ['sequence 0', withEvent({ sequence: 0 }), 'scenario.events.0.sequence'],
  ['a negative sequence', withEvent({ sequence: -2 }), 'scenario.events.0.sequence'],
  ['a fractional sequence', withEvent({ sequence: 1.5 }), 'scenario.events.0.sequence'],
  ['a sequence given as a string number', withEvent({ sequence: '1' }), 'scenario.events.0.sequence'],
  ['a sequence of "ALL"', withEvent({ sequence: 'ALL' }), 'scenario.events.0.sequence'],
  ['a null sequence', withEvent({ sequence: null }), 'scenario.events.0.sequence'],
  ['no sequence', withEvent({}, ['sequence']), 'scenario.events.0.sequence'],
  ['at_step 0', withEvent({ at_step: 0 }), 'scenario.events.0.at_step'],
  ['a fractional at_step', withEvent({ at_step: 2.5 }), 'scenario.events.0.at_step'],
  ['no at_step', withEvent({}, ['at_step']), 'scenario.events.0.at_step'],
  ['duration 0', withEvent({ duration: 0 }), 'scenario.events.0.duration'],
  ['duration 1001', withEvent({ duration: 1001 }), 'scenario.events.0.duration'],
  ['a fractional duration', withEvent({ duration: 1.5 }), 'scenario.events.0.duration'],
  ['no duration', withEvent({}, ['duration']), 'scenario.events.0.duration'],
  ['intensity 0', withEvent({ intensity: 0 }), 'scenario.events.0.intensity'],
  ['a negative intensity', withEvent({ intensity: -1 }), 'scenario.events.0.intensity'],
  ['intensity above 3', withEvent({ intensity: 3.0001 }), 'scenario.events.0.intensity'],
  ['intensity given as a string', withEvent({ intensity: '1' }), 'scenario.events.0.intensity'],
  ['no events', finance({ scenario: { events: [] } }), 'scenario.events'],
  ['17 events', finance({ scenario: { events: Array.from({ length: 17 }, () => CRASH) } }), 'scenario.events'],
  ['events that are not an array', finance({ scenario: { events: CRASH } }), 'scenario.events'],
  ['a scenario without events', finance({ scenario: {} }), 'scenario.events'],
  ['a scenario that is an array', finance({ scenario: [CRASH] }), 'scenario'],
  ['a null scenario', finance({ scenario: null }), 'scenario'],
  ['a bad field in the second event', finance({ scenario: { events: [CRASH, { ...CRASH, duration: 0 }] } }), 'scenario.events.1.duration'],
];

for (const [what, body, expected] of INVALID) {
  test(`422 validation_failed with an issue at "${expected}" for ${what}`, async (t) => {
    const { status, code, issues } = await issuesOf(body);
    t.is(status, 422, JSON.stringify(issues));
    t.is(code, 'validation_failed');
    t.true(issues.some((issue) => issue.path === expected && issue.message !== ''), JSON.stringify(issues));
  });
}

test('every bad field of an event is named at once', async (t) => {
  const { status, issues } = await issuesOf(withEvent({ at_step: 0, duration: 5000, intensity: 9, extra: true }));
  t.is(status, 422);
  t.deepEqual(
    issues.map((issue) => issue.path).sort(),
    ['scenario.events.0.at_step', 'scenario.events.0.duration', 'scenario.events.0.extra', 'scenario.events.0.intensity'],
  );
});

for (const engine of ['1', '2', '1.0.0', '2.0.0']) {
  test(`a scenario with engine_version "${engine}" is 422 validation_failed at "scenario": engines before 3 have none`, async (t) => {
    const { status, code, issues } = await issuesOf(finance({ engine_version: engine }));
    t.is(status, 422);
    t.is(code, 'validation_failed');
    t.deepEqual(issues.map((issue) => issue.path), ['scenario'], JSON.stringify(issues));
  });
}

test('the edges of every bound are accepted: 16 events, sequence "all", duration 1 and 1000, intensity 3 and just above 0', async (t) => {
  const events = [
    { type: 'volatility_regime', sequence: 'all', at_step: 1, duration: 1000, intensity: 3 },
    { type: 'rally', sequence: 2, at_step: 1, duration: 1, intensity: 0.001 },
    ...Array.from({ length: 14 }, (_, index) => ({ ...CRASH, sequence: index + 1 })),
  ];
  const response = await postSimulation(app, finance({ scenario: { events } }), { key });
  t.is(response.status, 200, response.text);
  t.deepEqual(response.body.scenario, { events: events.map((event) => ({ intensity: 1, ...event })) });
});

test('the alias mobile takes mobile_app event types', async (t) => {
  const response = await postSimulation(app, finance({ preset: 'mobile', scenario: { events: [{ type: 'outage', sequence: 'all', at_step: 2, duration: 3 }] } }), { key });
  t.is(response.status, 200, response.text);
  t.is(response.body.preset, 'mobile_app');
  t.deepEqual(response.body.scenario, { events: [{ type: 'outage', sequence: 'all', at_step: 2, duration: 3, intensity: 1 }] });
});

// ---------------------------------------------------------------------------------------------------
// The echo, the history, replays

test('the result echoes the validated scenario (intensity filled, the wire order of keys), and the history Run carries it', async (t) => {
  // Keys in another order than the wire's, intensity left out.
  const given = { events: [{ duration: 10, at_step: 20, sequence: 1, type: 'market_crash' }] };
  const first = await post(finance({ scenario: given }));
  t.is(first.status, 200, first.bytes.toString());
  t.true(first.bytes.toString().includes(`,"seed":7,"scenario":${CRASH_ECHO},"data":[`));
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
    t.true(first.bytes.toString().includes(',"seed":7,"scenario":null,"data":['));
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
    // An idempotent JSON replay may differ in metadata.compute_ms only (DECISIONS "Idempotent retries").
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
// A matched pair

type Row = Record<string, unknown> & { sequence_id: number; interaction_id: number; scenario_event: string | null };

/** The sequences of a run that appear whole in it (a later sequence follows them), by sequence_id. */
const wholeSequences = (records: readonly Row[]): Map<number, Row[]> => {
  const sequences = new Map<number, Row[]>();
  for (const record of records) {
    const rows = sequences.get(record.sequence_id) ?? [];
    rows.push(record);
    sequences.set(record.sequence_id, rows);
  }
  const last = records.at(-1)?.sequence_id;
  sequences.delete(last ?? 0);
  return sequences;
};

const withoutInteractionId = ({ interaction_id: _id, ...rest }: Row): Record<string, unknown> => rest;

const parseNdjson = (answer: HttpAnswer): Row[] => answer.bytes.toString().split('\n').slice(0, -1).map((line) => JSON.parse(line) as Row);

for (const [preset, type, n] of [
  ['finance', 'market_crash', 3000],
  ['healthcare', 'sepsis_onset', 2000],
  ['education', 'fatigue', 2000],
  ['mobile_app', 'outage', 5000],
] as const) {
  test(`${preset}: a matched pair over HTTP differs only where ${type} reaches: untargeted sequences identical but interaction_id, the targeted one before at_step`, async (t) => {
    const plain = { preset, num_interactions: n, seed: 2026, engine_version: '3' };
    const without = await post(plain, 'ndjson');
    t.is(without.status, 200);
    const a = parseNdjson(without);
    t.true(a.every((record) => record.scenario_event === null), 'no event in the run without a scenario');
    const wholeA = wholeSequences(a);
    // The target: a later sequence (so one precedes it) whose episode outlasts the event.
    const at_step = 5;
    const duration = 8;
    const target = [...wholeA].find(([sequence, rows]) => sequence >= 2 && rows.length >= at_step + duration)?.[0];
    if (target === undefined) {
      t.fail('no sequence of the run is long enough for the event');
      return;
    }
    const event = { type, sequence: target, at_step, duration };
    const withEvent = await post({ ...plain, scenario: { events: [event] } }, 'ndjson');
    t.is(withEvent.status, 200, withEvent.bytes.toString());
    const b = parseNdjson(withEvent);
    const wholeB = wholeSequences(b);

    let compared = 0;
    for (const [sequence, rows] of wholeA) {
      const other = wholeB.get(sequence);
      if (other === undefined || sequence === target) continue;
      // Untargeted: identical in every field but interaction_id (the targeted one may change length).
      t.deepEqual(other.map(withoutInteractionId), rows.map(withoutInteractionId), `sequence ${sequence}`);
      compared += 1;
    }
    t.true(compared >= 2, `untargeted whole sequences compared: ${compared}`);

    const targetA = a.filter((record) => record.sequence_id === target);
    const targetB = b.filter((record) => record.sequence_id === target);
    // Identical before at_step, interaction_id included (everything before it is the same).
    t.deepEqual(targetB.slice(0, at_step - 1), targetA.slice(0, at_step - 1));
    // The window: its records carry the type from at_step on (fewer than duration only if the episode
    // ends inside it); no record outside it does.
    const window = b.filter((record) => record.scenario_event !== null);
    t.true(window.length >= 1 && window.length <= duration, `window of ${window.length}`);
    t.true(window.every((record) => record.scenario_event === type && record.sequence_id === target));
    t.deepEqual(
      window.map((record) => targetB.indexOf(record) + 1),
      Array.from({ length: window.length }, (_, index) => at_step + index),
    );
    if (targetB.length >= at_step + duration) {
      t.is(window.length, duration);
    }
  });
}

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
