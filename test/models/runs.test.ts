import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { ACCEPT, type Format } from '../simulations/scenarioFixtures.ts';
import { readArchive } from '../datasets/readArchive.ts';
import { call, tinyModel } from './modelFixtures.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

let app: TestApp;
useFileStack(
  test,
  (started) => {
    app = started;
  },
  { threads: 2 },
);

const caller = () => buildCaller(app.services.pool, { max_models: 10 });

const simulate = (key: string, body: Record<string, unknown>, format: Format = 'json', headers: Record<string, string> = {}) =>
  call(app, 'POST', '/v1/simulations', key, { body, headers: { Accept: ACCEPT[format], ...headers } });

/** An account with the tiny model stored (version 1), and its digest. */
const withModel = async (name = 'members'): Promise<{ key: string; accountId: string; digest: string }> => {
  const me = await caller();
  const put = await call(app, 'PUT', `/v1/models/${name}`, me.key, { body: tinyModel() });
  if (put.status !== 201) throw new Error(`PUT answered ${put.status}: ${put.text}`);
  return { key: me.key, accountId: me.accountId, digest: put.body.digest as string };
};

test('a model runs through POST /v1/simulations: preset is its name, model its version, the records its fields', async (t) => {
  const me = await withModel();
  const run = await simulate(me.key, { model: 'members', num_interactions: 120, seed: 5 });
  t.is(run.status, 200, run.text);
  t.like(run.body, { preset: 'members', profile: 'steady', num_interactions: 120, seed: 5, scenario: null });
  t.deepEqual(run.body.model, { name: 'members', version: 1, digest: me.digest });
  // The result's keys, in the wire's order: `model` right after `preset`; engine 4's (the default) echo of
  // the timing inputs after the seed; the scenario's echo after the records.
  t.deepEqual(Object.keys(run.body), ['simulation_id', 'preset', 'model', 'profile', 'num_interactions', 'seed', 'start_time', 'order', 'population', 'data', 'scenario', 'metadata']);
  t.is(run.body.data.length, 120);
  t.deepEqual(Object.keys(run.body.data[0]), ['sequence_id', 'interaction_id', 'event_time', 'state', 'balance', 'visits', 'channel', 'scenario_event']);
  t.true(run.body.data.every((record: { state: string }) => ['Active', 'Lapsed', 'Gone'].includes(record.state)));
  t.is(run.headers.get('simulation-model'), 'members@1');
  t.is(run.headers.get('simulation-preset'), 'members');
  t.true(Number(run.body.metadata.service_version.split('.')[0]) >= 3);
  // Reproducible: the same inputs make the same records.
  const again = await simulate(me.key, { model: 'members@1', num_interactions: 120, seed: 5 });
  t.deepEqual(again.body.data, run.body.data);
});

test('a preset run answers model: null and sends no Simulation-Model header', async (t) => {
  const me = await caller();
  const run = await simulate(me.key, { preset: 'finance', num_interactions: 5, seed: 1 });
  t.is(run.status, 200);
  t.is(run.body.model, null);
  t.is(run.headers.get('simulation-model'), null);
});

test('name runs the latest version, name@version the one named; the profile is the model’s', async (t) => {
  const me = await withModel();
  const v2 = await call(app, 'PUT', '/v1/models/members', me.key, { body: tinyModel({ max_steps: 3 }) });
  const latest = await simulate(me.key, { model: 'members', num_interactions: 30, seed: 1, profile: 'shaky' });
  t.deepEqual(latest.body.model, { name: 'members', version: 2, digest: v2.body.digest });
  t.is(latest.body.profile, 'shaky');
  // max_steps 3: no sequence is longer than three records.
  const lengths = new Map<number, number>();
  for (const record of latest.body.data as { sequence_id: number }[]) lengths.set(record.sequence_id, (lengths.get(record.sequence_id) ?? 0) + 1);
  t.true([...lengths.values()].every((length) => length <= 3));
  const first = await simulate(me.key, { model: 'members@1', num_interactions: 30, seed: 1 });
  t.deepEqual(first.body.model, { name: 'members', version: 1, digest: me.digest });
  t.is(first.headers.get('simulation-model'), 'members@1');
});

test('both or neither of preset and model, an unknown profile, engine 1 or 2, or an unknown event type are 422', async (t) => {
  const me = await withModel();
  const cases: [Record<string, unknown>, string][] = [
    [{ preset: 'finance', model: 'members', num_interactions: 5 }, 'model'],
    [{ num_interactions: 5 }, 'preset'],
    [{ model: 'members', num_interactions: 5, profile: 'nosuch' }, 'profile'],
    [{ model: 'members', num_interactions: 5, engine_version: '1' }, 'engine_version'],
    [{ model: 'members', num_interactions: 5, engine_version: '2' }, 'engine_version'],
    [{ model: 'members', num_interactions: 5, scenario: { events: [{ type: 'market_crash', sequence: 1, at_step: 2, duration: 2 }] } }, 'scenario.events.0.type'],
    [{ model: 'Members!', num_interactions: 5 }, 'model'],
  ];
  for (const [body, path] of cases) {
    const answer = await simulate(me.key, body);
    t.is(answer.status, 422, JSON.stringify(body));
    t.is(answer.body.error.details.code, 'validation_failed');
    t.true(
      answer.body.error.details.issues.some((issue: { path: string }) => issue.path === path),
      `${JSON.stringify(body)}: ${JSON.stringify(answer.body.error.details.issues)}`,
    );
  }
});

test("an unknown model, another account's, an unknown version and a deleted one are 404 model_not_found, counted in the rate window", async (t) => {
  const me = await withModel();
  const other = await caller();
  for (const [key, model] of [
    [me.key, 'nosuch'],
    [other.key, 'members'],
    [me.key, 'members@2'],
  ] as const) {
    const answer = await simulate(key, { model, num_interactions: 5 });
    t.is(answer.status, 404, model);
    t.is(answer.body.error.details.code, 'model_not_found');
    t.truthy(answer.headers.get('ratelimit'));
  }
  await call(app, 'DELETE', '/v1/models/members', me.key);
  const deleted = await simulate(me.key, { model: 'members', num_interactions: 5 });
  t.is(deleted.status, 404);
  t.is(deleted.body.error.details.code, 'model_not_found');
  t.is((await simulate(me.key, { model: 'members@1', num_interactions: 5 })).status, 404);
});

test('every format carries the model run, with Simulation-Model; CSV has the model’s columns', async (t) => {
  const me = await withModel();
  for (const format of Object.keys(ACCEPT) as Format[]) {
    const answer = await simulate(me.key, { model: 'members', num_interactions: 50, seed: 2 }, format);
    t.is(answer.status, 200, `${format}: ${answer.text.slice(0, 200)}`);
    t.is(answer.headers.get('simulation-model'), 'members@1', format);
    if (format === 'csv') {
      t.is(answer.text.split('\r\n')[0], 'sequence_id,interaction_id,event_time,state,balance,visits,channel,scenario_event');
    }
    if (format === 'ndjson') {
      t.is(answer.text.trim().split('\n').length, 50);
    }
    if (format === 'parquet') {
      t.is(answer.bytes.subarray(0, 4).toString(), 'PAR1');
    }
  }
});

test("a scenario with the model's event labels its window, and its counterfactual matches outside it", async (t) => {
  const me = await withModel();
  const scenario = { events: [{ type: 'outage', sequence: 1, at_step: 3, duration: 4, intensity: 1 }] };
  const withEvent = await simulate(me.key, { model: 'members', num_interactions: 200, seed: 9, engine_version: '3', scenario });
  t.is(withEvent.status, 200, withEvent.text);
  // The echo adds what the run made of the events: this one labelled records, so it is placed.
  t.deepEqual(withEvent.body.scenario, { ...scenario, placed: scenario.events, unplaced: [] });
  const labelled = (withEvent.body.data as { scenario_event: string | null; sequence_id: number }[]).filter((record) => record.scenario_event !== null);
  t.true(labelled.length > 0);
  t.true(labelled.every((record) => record.scenario_event === 'outage' && record.sequence_id === 1));
  const without = await simulate(me.key, { model: 'members', num_interactions: 200, seed: 9, engine_version: '3' });
  // Matched counterfactual: sequences the event does not touch are the same, record for record (their
  // interaction ids may shift when the event changes its own sequence's length).
  const untouched = (data: Record<string, unknown>[]): string =>
    JSON.stringify(data.filter((record) => record.sequence_id !== 1).slice(0, 20).map((record) => ({ ...record, interaction_id: 0 })));
  t.is(untouched(withEvent.body.data), untouched(without.body.data));
});

test('an idempotent retry answers the recorded run (its model version) even after a new version and after DELETE', async (t) => {
  const me = await withModel();
  const headers = { 'Idempotency-Key': `models-${me.accountId}` };
  const first = await simulate(me.key, { model: 'members', num_interactions: 40, seed: 3 }, 'json', headers);
  t.is(first.status, 200);
  await call(app, 'PUT', '/v1/models/members', me.key, { body: tinyModel({ max_steps: 2 }) });
  const retried = await simulate(me.key, { model: 'members', num_interactions: 40, seed: 3 }, 'json', headers);
  t.is(retried.status, 200);
  t.is(retried.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(retried.body.model, first.body.model);
  t.deepEqual(retried.body.data, first.body.data);
  await call(app, 'DELETE', '/v1/models/members', me.key);
  const afterDelete = await simulate(me.key, { model: 'members', num_interactions: 40, seed: 3 }, 'json', headers);
  t.is(afterDelete.status, 200);
  t.deepEqual(afterDelete.body.data, first.body.data);
});

test('history shows the model run with its version; its replay and a download link work after DELETE', async (t) => {
  const me = await withModel();
  const first = await simulate(me.key, { model: 'members', num_interactions: 60, seed: 4 }, 'csv');
  t.is(first.status, 200);
  const id = first.headers.get('simulation-id') ?? '';
  const runs = await call(app, 'GET', '/v1/simulations', me.key);
  const run = runs.body.data.find((entry: { simulation_id: string }) => entry.simulation_id === id);
  t.like(run, { preset: 'members', model: { name: 'members', version: 1, digest: me.digest }, status: 'completed' });
  const one = await call(app, 'GET', `/v1/simulations/${id}`, me.key);
  t.deepEqual(one.body.model, { name: 'members', version: 1, digest: me.digest });
  await ledgerWritten(app.services);
  const ledger = await app.services.pool.one(
    sql.type(z.object({ preset: z.string(), model_version: z.number(), model_digest: z.string() }))`SELECT preset, model_version, model_digest FROM simulations WHERE id = ${id}`,
  );
  t.deepEqual(ledger, { preset: 'members', model_version: 1, model_digest: me.digest });

  t.is((await call(app, 'DELETE', '/v1/models/members', me.key)).status, 200);
  const replay = await call(app, 'GET', `/v1/simulations/${id}/records`, me.key, { headers: { Accept: 'text/csv' } });
  t.is(replay.status, 200, replay.text);
  t.is(replay.text, first.text);
  t.is(replay.headers.get('simulation-model'), 'members@1');

  const link = await call(app, 'POST', `/v1/simulations/${id}/links`, me.key, { body: { format: 'csv' } });
  t.is(link.status, 201, link.text);
  const downloaded = await fetch(`${app.url}${new URL(link.body.url as string).pathname}`);
  t.is(downloaded.status, 200);
  t.is(await downloaded.text(), first.text);
});

test('a model run counts against the plan like a preset run: the per-request maximum applies', async (t) => {
  const me = await buildCaller(app.services.pool, { max_interactions_per_request: 10, max_models: 3 });
  await call(app, 'PUT', '/v1/models/members', me.key, { body: tinyModel() });
  const refused = await simulate(me.key, { model: 'members', num_interactions: 11 });
  t.is(refused.status, 403);
  t.is(refused.body.error.details.code, 'interactions_per_request_exceeded');
  const ran = await simulate(me.key, { model: 'members', num_interactions: 10 });
  t.is(ran.status, 200);
  const usage = await call(app, 'GET', '/v1/usage', me.key);
  t.is(usage.body.usage.interactions, 10);
});

test("a random scenario places the model's events from the seed, and the run's dataset archive labels them", async (t) => {
  const me = await withModel();
  const scenario = { random: { types: ['outage'], per_sequence: 1, duration: [2, 4], intensity: [1, 2], min_gap: 3 } };
  const run = await simulate(me.key, { model: 'members', num_interactions: 400, seed: 12, engine_version: '3', scenario });
  t.is(run.status, 200, run.text);
  const placed = run.body.scenario.placed as { type: string; sequence: number; at_step: number; duration: number }[];
  t.true(placed.length > 0);
  // Every placed event is the model's, within the ranges asked, past min_gap, and labels exactly its window.
  const data = run.body.data as { sequence_id: number; scenario_event: string | null }[];
  const steps = new Map<number, number>();
  const labelled = data.map((record) => {
    const step = (steps.get(record.sequence_id) ?? 0) + 1;
    steps.set(record.sequence_id, step);
    return { sequence: record.sequence_id, step, label: record.scenario_event };
  });
  for (const event of placed) {
    t.is(event.type, 'outage');
    t.true(event.duration >= 2 && event.duration <= 4 && event.at_step > 3);
  }
  const inWindow = (sequence: number, step: number): boolean =>
    placed.some((event) => event.sequence === sequence && step >= event.at_step && step < event.at_step + event.duration);
  t.true(labelled.every(({ sequence, step, label }) => (label === 'outage') === inWindow(sequence, step)));

  const dataset = await fetch(`${app.url}/v1/simulations/${run.body.simulation_id}/dataset?layout=nab`, { headers: { Authorization: `Bearer ${me.key}` } });
  t.is(dataset.status, 200);
  t.is(dataset.headers.get('content-type'), 'application/zip');
  // Read back with the system's unzip: the model's first numeric field is NAB's value column, and the
  // manifest lists what the run placed.
  const archive = await readArchive(Buffer.from(await dataset.arrayBuffer()));
  t.teardown(() => archive.remove());
  const manifest = await archive.json<{ columns: Record<string, string>; placed: unknown[] }>('manifest.json');
  t.deepEqual(manifest.columns, { value: 'balance' });
  t.deepEqual(manifest.placed, placed);
  t.true(archive.entries.includes('labels/combined_windows.json'));
});
