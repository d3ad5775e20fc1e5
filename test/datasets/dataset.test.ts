import test from 'ava';
import { Redis } from 'ioredis';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { TEST_REDIS_URL } from '../helpers/testRedis.ts';
import { getWithKey, insertLedgerRow } from '../history/historyFixtures.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { readArchive } from './readArchive.ts';

// GET /v1/simulations/{id}/dataset (docs/datasets.md#2-the-archive): the archive read back
// with the system's unzip, every label checked against the run's own records, the train files against
// the run without the scenario; the refusals; the replay's slot and rate.
let app: TestApp;
let worker: SimulationWorker;
let redis: Redis;

test.before(async () => {
  app = await startTestApp();
  worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 2 });
  redis = new Redis(TEST_REDIS_URL);
});

test.after.always(async () => {
  redis?.disconnect();
  await worker?.close();
  await app?.close();
});

type Row = Record<string, string | number | null>;
type Placed = { type: string; sequence: number; at_step: number; duration: number; intensity: number };
type Manifest = {
  layout: string;
  simulation_id: string;
  engine_version: string;
  placed: Placed[];
  unplaced: unknown[];
  columns: Record<string, string>;
  files: { path: string; sequence: number; rows: number; anomalies: number; anomalous_rows: number }[];
};

const REQUEST = {
  preset: 'healthcare',
  profile: 'critical_care',
  num_interactions: 2500,
  seed: 19,
  scenario: {
    events: [{ type: 'hypoxia', sequence: 5000, at_step: 3, duration: 4 }],
    random: { types: ['sepsis_onset', 'hypoxia', 'missed_medication'], per_sequence: 2, duration: [3, 15], intensity: [0.5, 2] },
  },
};

const bySequence = (data: readonly Row[]): Map<number, Row[]> => {
  const map = new Map<number, Row[]>();
  for (const record of data) map.set(record.sequence_id as number, [...(map.get(record.sequence_id as number) ?? []), record]);
  return map;
};

const download = (key: string, id: string, query: string) => getWithKey(app, `/v1/simulations/${id}/dataset?${query}`, key);

test('timeeval: test files hold every record with its label, train files the run without the scenario, and the manifest what was placed', async (t) => {
  const me = await buildCaller(app.services.pool, {});
  const treated = await postSimulation(app, REQUEST, { key: me.key });
  t.is(treated.status, 200, treated.text);
  const clean = await postSimulation(app, { ...REQUEST, scenario: undefined }, { key: me.key });
  const response = await download(me.key, treated.body.simulation_id, 'layout=timeeval');
  t.is(response.status, 200, response.text);
  t.is(response.headers.get('content-type'), 'application/zip');
  t.regex(response.headers.get('content-disposition') ?? '', /attachment; filename=".+-timeeval\.zip"/);
  const archive = await readArchive(response.bytes);
  t.teardown(() => archive.remove());

  const records = bySequence(treated.body.data);
  const control = bySequence(clean.body.data);
  const manifest = await archive.json<Manifest>('manifest.json');
  t.like(manifest, { layout: 'timeeval', simulation_id: treated.body.simulation_id, engine_version: '4.0.0', timestamp: 'event_time' });
  t.deepEqual(manifest.placed, treated.body.scenario.placed);
  t.deepEqual(manifest.unplaced, treated.body.scenario.unplaced);
  t.is(manifest.unplaced.length, 1);
  const first = treated.body.data[0] as Row;
  const numeric = Object.keys(first).filter((name) => typeof first[name] === 'number' && name !== 'sequence_id' && name !== 'interaction_id');
  t.deepEqual(Object.values(manifest.columns), numeric);
  t.deepEqual(Object.keys(manifest.columns), numeric.map((_, i) => `value-${i}`));

  const registry = await archive.json<Record<string, { test_path: string; train_path?: string; type: string; period: number }>>('datasets.json');
  t.deepEqual(Object.keys(registry).map(Number), [...records.keys()]);
  let labelled = 0;
  for (const [sequence, rows] of records) {
    t.like(registry[String(sequence)], { test_path: `test/${sequence}.csv`, type: 'synthetic' });
    const [header, ...cells] = await archive.csv(`test/${sequence}.csv`);
    t.deepEqual(header, ['timestamp', ...numeric.map((_, i) => `value-${i}`), 'is_anomaly', 'anomaly_type']);
    t.deepEqual(
      cells,
      rows.map((record) => [String(record.event_time), ...numeric.map((name) => String(record[name])), record.scenario_event === null ? '0' : '1', String(record.scenario_event ?? '')]),
      `test/${sequence}.csv`,
    );
    const file = manifest.files.find((each) => each.path === `test/${sequence}.csv`);
    t.like(file, { sequence, rows: rows.length, anomalies: manifest.placed.filter((event) => event.sequence === sequence).length, anomalous_rows: rows.filter((record) => record.scenario_event !== null).length });
    labelled += file?.anomalous_rows ?? 0;
    const clean = control.get(sequence);
    if (clean === undefined) {
      t.is(registry[String(sequence)]?.train_path, undefined);
      continue;
    }
    t.is(registry[String(sequence)]?.train_path, `train/${sequence}.csv`);
    const [, ...train] = await archive.csv(`train/${sequence}.csv`);
    t.deepEqual(train, clean.map((record) => [String(record.event_time), ...numeric.map((name) => String(record[name])), '0', '']), `train/${sequence}.csv`);
  }
  t.true(labelled > 20, String(labelled));
  t.is(archive.entries.at(-1), 'manifest.json');
});

test('nab: one value column (the first numeric field, or ?field=), labels at each window start and windows that hold exactly the labelled records', async (t) => {
  const me = await buildCaller(app.services.pool, {});
  const treated = await postSimulation(app, { ...REQUEST, scenario: { random: REQUEST.scenario.random } }, { key: me.key });
  const records = bySequence(treated.body.data);
  const placed = treated.body.scenario.placed as Placed[];
  for (const [query, field] of [['layout=nab', 'heart_rate'], ['layout=nab&field=spo2', 'spo2']] as const) {
    const response = await download(me.key, treated.body.simulation_id, query);
    t.is(response.status, 200, response.text);
    const archive = await readArchive(response.bytes);
    t.teardown(() => archive.remove());
    t.deepEqual((await archive.json<Manifest>('manifest.json')).columns, { value: field });
    const labels = await archive.json<Record<string, string[]>>('labels/combined_labels.json');
    const windows = await archive.json<Record<string, [string, string][]>>('labels/combined_windows.json');
    t.deepEqual(Object.keys(windows), [...records.keys()].map((sequence) => `${sequence}.csv`));
    for (const [sequence, rows] of records) {
      const [header, ...cells] = await archive.csv(`data/${sequence}.csv`);
      t.deepEqual(header, ['timestamp', 'value']);
      t.deepEqual(cells, rows.map((record) => [String(record.event_time), String(record[field])]));
      // Random events never overlap: each placed event is one window, cut where its sequence ends.
      const own = placed.filter((event) => event.sequence === sequence);
      const expected = own.map((event): [number, number] => [event.at_step, Math.min(event.at_step + event.duration - 1, rows.length)]);
      // Engine 4: a window's ends and a label are the event_time of the records at those steps.
      const timeAt = (step: number): string => String(rows[step - 1]?.event_time);
      t.deepEqual(windows[`${sequence}.csv`], expected.map(([start, end]) => [timeAt(start), timeAt(end)]), `sequence ${sequence}`);
      t.deepEqual(labels[`${sequence}.csv`], expected.map(([start]) => timeAt(start)));
      rows.forEach((record, i) => {
        const inside = expected.find(([start, end]) => i + 1 >= start && i + 1 <= end);
        if ((record.scenario_event !== null) !== (inside !== undefined)) t.fail(`sequence ${sequence} step ${i + 1}`);
      });
    }
  }
});

test('refusals: 404 unknown run, 409 a run that did not complete, 422 a run without a scenario, a bad layout or field', async (t) => {
  const me = await buildCaller(app.services.pool, {});
  const treated = await postSimulation(app, { ...REQUEST, num_interactions: 100 }, { key: me.key });
  const plain = await postSimulation(app, { ...REQUEST, num_interactions: 100, scenario: undefined }, { key: me.key });
  const expect = async (id: string, query: string, status: number, code: string, path?: string): Promise<void> => {
    const response = await download(me.key, id, query);
    t.is(response.status, status, `${query}: ${response.text}`);
    t.is(response.body.error.details.code, code);
    if (path !== undefined) t.true((response.body.error.details.issues as { path: string }[]).some((issue) => issue.path === path), response.text);
  };
  await expect('00000000-0000-4000-8000-000000000000', 'layout=nab', 404, 'simulation_not_found');
  const queued = await insertLedgerRow(app.services.pool, me.accountId, { status: 'failed' });
  await expect(queued, 'layout=timeeval', 409, 'simulation_not_completed');
  await expect(plain.body.simulation_id, 'layout=timeeval', 422, 'validation_failed', 'simulation_id');
  await expect(treated.body.simulation_id, 'layout=csv', 422, 'validation_failed', 'layout');
  await expect(treated.body.simulation_id, '', 422, 'validation_failed', 'layout');
  await expect(treated.body.simulation_id, 'layout=timeeval&field=spo2', 422, 'validation_failed', 'field');
  await expect(treated.body.simulation_id, 'layout=nab&field=state', 422, 'validation_failed', 'field');
  await expect(treated.body.simulation_id, 'layout=nab&colour=red', 422, 'validation_failed', 'colour');
  const anonymous = await getWithKey(app, `/v1/simulations/${treated.body.simulation_id}/dataset?layout=nab`, undefined);
  t.is(anonymous.status, 401);
});

test('a dataset takes a concurrency slot while it runs and frees it after, and takes no quota', async (t) => {
  const own = await startTestApp({ database: app.database });
  t.teardown(() => own.close());
  const me = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  let ownWorker = await startTestWorker({ redisPrefix: own.redisPrefix });
  const first = await postSimulation(own, { ...REQUEST, num_interactions: 200 }, { key: me.key });
  t.is(first.status, 200, first.text);
  await ownWorker.close();
  const usageBefore = (await getWithKey(own, '/v1/usage', me.key)).body.usage;

  // No worker: the dataset's first run waits in the queue, holding the account's one slot.
  const slots = limitKeys(own.redisPrefix, me.accountId, 'unused').slots;
  const pending = getWithKey(own, `/v1/simulations/${first.body.simulation_id}/dataset?layout=timeeval`, me.key);
  await eventually(async () => ((await redis.zcard(slots)) === 1 ? true : undefined), 10_000, 10);
  const run = await postSimulation(own, { preset: 'finance', num_interactions: 1 }, { key: me.key });
  t.is(run.status, 429, run.text);
  t.like(run.body.error.details, { code: 'concurrency_limit_exceeded', limit: 1 });

  ownWorker = await startTestWorker({ redisPrefix: own.redisPrefix });
  t.teardown(() => ownWorker.close());
  const answered = await pending;
  t.is(answered.status, 200);
  t.true((await readArchive(answered.bytes)).entries.includes('manifest.json'));
  await eventually(async () => ((await redis.zcard(slots)) === 0 ? true : undefined), 10_000, 10);
  t.deepEqual((await getWithKey(own, '/v1/usage', me.key)).body.usage, usageBefore);
});

test('a dataset passes the rate limiter and is served when the monthly quota is used up', async (t) => {
  const me = await buildCaller(app.services.pool, { requests_per_minute: 3, monthly_requests: 1, monthly_interactions: 100 });
  const first = await postSimulation(app, { ...REQUEST, num_interactions: 100 }, { key: me.key });
  t.is(first.status, 200, first.text);
  const usage = (await getWithKey(app, '/v1/usage', me.key)).body.usage;
  for (const remaining of [1, 0]) {
    const again = await download(me.key, first.body.simulation_id, 'layout=nab');
    t.is(again.status, 200, again.text);
    t.regex(again.headers.get('ratelimit') ?? '', new RegExp(`^"rpm";r=${remaining};t=\\d+$`));
  }
  const limited = await download(me.key, first.body.simulation_id, 'layout=nab');
  t.is(limited.status, 429, limited.text);
  t.like(limited.body.error.details, { code: 'rate_limit_exceeded', limit: 3 });
  t.deepEqual((await getWithKey(app, '/v1/usage', me.key)).body.usage, usage);
});
