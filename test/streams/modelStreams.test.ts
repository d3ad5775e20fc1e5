import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { TEST_REDIS } from '../helpers/testRedis.ts';
import { call, tinyModel } from '../models/modelFixtures.ts';
import { createLogger } from '../../shared/logger.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { startStreamWorker, type StreamWorker } from '../../worker/streams/startStreamWorker.ts';
import { readSse } from './readSse.ts';

// The whole stack: the API, a simulation worker (POST /v1/simulations is the reference) and a stream
// worker (a webhook stream's clock and deliveries), all on this file's database and Redis prefix.
let app: TestApp;
let simulations: SimulationWorker;
let streams: StreamWorker;

test.before(async () => {
  app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  simulations = await startTestWorker({ redisPrefix: app.redisPrefix });
  streams = await startStreamWorker({
    redis: TEST_REDIS,
    redisPrefix: app.redisPrefix,
    databaseUrl: app.database.url,
    threads: 1,
    concurrency: 10,
    sessionSecret: app.services.config.sessionSecret,
    webhookAllowPrivate: true,
    retryBaseMs: 20,
    logger: createLogger('silent', 'worker'),
  });
  await streams.ready();
});

test.after.always(async () => {
  await streams?.close();
  await simulations?.close();
  await app?.close();
});

const START = '2026-03-01T08:00:00.000Z';

/** An account with the tiny model stored as `members` (version 1), and that version's digest. */
const withModel = async (definition = tinyModel()): Promise<{ key: string; digest: string }> => {
  const me = await buildCaller(app.services.pool, { max_models: 10 });
  const put = await call(app, 'PUT', '/v1/models/members', me.key, { body: definition });
  if (put.status !== 201) throw new Error(`PUT answered ${put.status}: ${put.text}`);
  return { key: me.key, digest: put.body.digest as string };
};

interface Envelope {
  readonly position: number;
  readonly record: Record<string, unknown>;
  readonly delay_ms: number;
  readonly duplicate: boolean;
}

/** Starts a stream, fast enough to read at once, and reads it whole over SSE. */
const streamed = async (key: string, body: Record<string, unknown>): Promise<{ stream: Record<string, any>; envelopes: Envelope[] }> => {
  const created = await call(app, 'POST', '/v1/streams', key, { body: { start_time: START, speed: 100_000, ...body } });
  if (created.status !== 201) throw new Error(`POST /v1/streams answered ${created.status}: ${created.text}`);
  const read = await readSse(`${app.url}${created.body.events_url}`, key);
  return { stream: created.body, envelopes: read.events.map((event) => JSON.parse(event.data) as Envelope) };
};

/** POST /v1/simulations of the same inputs, records in event_time order: what a stream must deliver. */
const simulated = async (key: string, body: Record<string, unknown>): Promise<Record<string, any>> => {
  const run = await call(app, 'POST', '/v1/simulations', key, { body: { start_time: START, ...body, order: 'time' } });
  if (run.status !== 200) throw new Error(`POST /v1/simulations answered ${run.status}: ${run.text}`);
  return run.body;
};

test("a model stream's envelopes carry, record for record, what POST /v1/simulations makes of the same model, seed, population and start_time in time order", async (t) => {
  const me = await withModel();
  const inputs = { model: 'members', num_interactions: 150, seed: 7, population: 12 };
  const { stream, envelopes } = await streamed(me.key, inputs);
  // Echoed as a simulation result echoes a model run: preset is the model's name, model its fixed version.
  t.like(stream['request'], { preset: 'members', profile: 'steady', seed: 7, num_interactions: 150, population: 12 });
  t.deepEqual(stream['request']['model'], { name: 'members', version: 1, digest: me.digest });
  const run = await simulated(me.key, inputs);
  t.deepEqual(run['model'], stream['request']['model']);
  t.is(run['data'].length, 150);
  t.deepEqual(
    envelopes.map((envelope) => envelope.record),
    run['data'],
  );
  t.deepEqual(envelopes.map((envelope) => [envelope.delay_ms, envelope.duplicate]), run['data'].map(() => [0, false]));
  // A preset stream echoes model: null, as a preset run does.
  const preset = await call(app, 'POST', '/v1/streams', me.key, { body: { preset: 'finance', num_interactions: 3, speed: 0.01 } });
  t.is(preset.status, 201);
  t.is(preset.body.request.model, null);
  t.is(preset.body.request.preset, 'finance');
});

test('`name@version` pins the version; `name` is the latest at creation; the stream keeps its version after the model changes or is deleted', async (t) => {
  const me = await withModel();
  const v2 = await call(app, 'PUT', '/v1/models/members', me.key, { body: tinyModel({ max_steps: 3 }) });
  t.is(v2.status, 201);
  const inputs = { num_interactions: 80, seed: 3, population: 6 };
  const pinned = await call(app, 'POST', '/v1/streams', me.key, { body: { ...inputs, model: 'members@1', start_time: START, speed: 100_000 } });
  const latest = await call(app, 'POST', '/v1/streams', me.key, { body: { ...inputs, model: 'members', start_time: START, speed: 100_000 } });
  t.deepEqual(pinned.body.request.model, { name: 'members', version: 1, digest: me.digest });
  t.deepEqual(latest.body.request.model, { name: 'members', version: 2, digest: v2.body.digest });
  const [first, second] = [await simulated(me.key, { ...inputs, model: 'members@1' }), await simulated(me.key, { ...inputs, model: 'members@2' })];
  t.notDeepEqual(first['data'], second['data']);
  // Deleted after creation: its versions stay readable, so the streams are made as they were fixed.
  t.is((await call(app, 'DELETE', '/v1/models/members', me.key)).status, 200);
  const readPinned = await readSse(`${app.url}${pinned.body.events_url}`, me.key);
  const readLatest = await readSse(`${app.url}${latest.body.events_url}`, me.key);
  t.deepEqual(readPinned.events.map((event) => (JSON.parse(event.data) as Envelope).record), first['data']);
  t.deepEqual(readLatest.events.map((event) => (JSON.parse(event.data) as Envelope).record), second['data']);
  // A new stream of the deleted name is refused like a simulation of it.
  const gone = await call(app, 'POST', '/v1/streams', me.key, { body: { ...inputs, model: 'members' } });
  t.is(gone.status, 404);
  t.is(gone.body.error.details.code, 'model_not_found');
});

test("an unknown model, another account's, an unknown version are 404 model_not_found; both or neither of preset and model, an engine before 4 and a model's unknown profile or event type are 422", async (t) => {
  const me = await withModel();
  const other = await buildCaller(app.services.pool, { max_models: 10 });
  for (const [key, model] of [
    [me.key, 'nosuch'],
    [other.key, 'members'],
    [me.key, 'members@2'],
  ] as const) {
    const answer = await call(app, 'POST', '/v1/streams', key, { body: { model, num_interactions: 5 } });
    t.is(answer.status, 404, model);
    t.is(answer.body.error.details.code, 'model_not_found');
  }
  const cases: [Record<string, unknown>, string][] = [
    [{ preset: 'finance', model: 'members', num_interactions: 5 }, 'model'],
    [{ num_interactions: 5 }, 'preset'],
    [{ model: 'members', num_interactions: 5, engine_version: '3' }, 'engine_version'],
    [{ preset: 'finance', num_interactions: 5, engine_version: '3.0.0' }, 'engine_version'],
    [{ model: 'members', num_interactions: 5, profile: 'nosuch' }, 'profile'],
    [{ model: 'members', num_interactions: 5, scenario: { events: [{ type: 'market_crash', sequence: 1, at_step: 2, duration: 2 }] } }, 'scenario.events.0.type'],
    [{ model: 'members', num_interactions: 5, scenario: { random: { types: ['outage'], per_sequence: 8, duration: [20, 30], intensity: [1, 1] } } }, 'scenario.random'],
    [{ preset: 'finance', num_interactions: 5, order: 'sequence' }, 'order'],
  ];
  for (const [body, path] of cases) {
    const answer = await call(app, 'POST', '/v1/streams', me.key, { body });
    t.is(answer.status, 422, JSON.stringify(body));
    t.is(answer.body.error.details.code, 'validation_failed');
    t.true(
      answer.body.error.details.issues.some((issue: { path: string }) => issue.path === path),
      `${JSON.stringify(body)}: ${JSON.stringify(answer.body.error.details.issues)}`,
    );
  }
  // Nothing was reserved by a refusal: no stream exists.
  t.deepEqual((await call(app, 'GET', '/v1/streams', me.key)).body.data, []);
});

test('a stream with a `random` scenario and one with an `at_time` event are accepted, and their records equal the simulation’s', async (t) => {
  const me = await withModel();
  const random = { random: { types: ['outage'], per_sequence: 2, duration: [2, 4], intensity: [0.5, 2], min_gap: 5 } };
  const cases: Record<string, unknown>[] = [
    { model: 'members', num_interactions: 400, seed: 21, population: 4, scenario: random },
    { model: 'members', num_interactions: 120, seed: 22, population: 4, scenario: { events: [{ type: 'outage', sequence: 'all', at_time: '2026-03-01T08:00:05Z', duration: 3 }] } },
    { preset: 'mobile_app', num_interactions: 150, seed: 23, population: 10, scenario: { random: { types: ['outage', 'promotion'], per_sequence: 1, duration: [2, 3], intensity: [1, 2] } } },
    { preset: 'mobile_app', num_interactions: 150, seed: 24, population: 10, scenario: { events: [{ type: 'promotion', sequence: 'all', at_time: '2026-03-01T08:30:00Z', duration: 2 }] } },
  ];
  for (const inputs of cases) {
    const { stream, envelopes } = await streamed(me.key, inputs);
    const run = await simulated(me.key, inputs);
    t.deepEqual(
      envelopes.map((envelope) => envelope.record),
      run['data'],
      JSON.stringify(inputs),
    );
    // The scenario was played: some record is labelled with its event.
    t.true(run['data'].some((record: { scenario_event: unknown }) => record.scenario_event !== null), JSON.stringify(inputs));
    t.true(envelopes.some((envelope) => envelope.record['scenario_event'] !== null));
    // at_time is echoed canonical (milliseconds), as the simulation echoes it.
    const event = stream['request']['scenario']['events']?.[0] as { at_time?: string } | undefined;
    if (event?.at_time !== undefined) t.is(event.at_time, run['scenario']['events'][0]['at_time']);
  }
});

test("the disorder of a model stream is keyed by the model's digest: two accounts' `members` of different definitions draw apart, one definition draws alike", async (t) => {
  const disorder = { late_share: 0.3, max_delay_s: 600, duplicate_share: 0.2 };
  const inputs = { model: 'members', num_interactions: 200, seed: 9, population: 10, disorder };
  const duplicated = async (key: string): Promise<number[]> =>
    (await streamed(key, inputs)).envelopes.filter((envelope) => envelope.duplicate).map((envelope) => envelope.record['interaction_id'] as number).sort((a, b) => a - b);
  const a = await withModel();
  const b = await withModel(tinyModel({ max_steps: 30 }));
  const c = await withModel();
  t.not(a.digest, b.digest);
  t.is(a.digest, c.digest);
  const [ofA, ofB, ofC] = [await duplicated(a.key), await duplicated(b.key), await duplicated(c.key)];
  t.true(ofA.length > 0);
  t.notDeepEqual(ofA, ofB);
  t.deepEqual(ofA, ofC);
});

test('a webhook model stream is run by the stream worker from its row: the batches carry the simulation’s records', async (t) => {
  const me = await withModel();
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  try {
    const inputs = { model: 'members', num_interactions: 90, seed: 31, population: 5 };
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const created = await call(app, 'POST', '/v1/streams', me.key, {
      body: { ...inputs, start_time: START, speed: 100_000, sink: { type: 'webhook', url, batch_max: 40, batch_ms: 50 } },
    });
    t.is(created.status, 201, created.text);
    const done = await eventually(async () => {
      const got = await call(app, 'GET', `/v1/streams/${created.body.id}`, me.key);
      return got.body.status === 'running' ? undefined : got.body;
    }, 60_000);
    t.is(done.status, 'completed', JSON.stringify(done.last_error));
    const delivered = bodies.flatMap((body) => (JSON.parse(body) as { events: Envelope[] }).events);
    const run = await simulated(me.key, inputs);
    t.deepEqual(
      delivered.map((envelope) => envelope.record),
      run['data'],
    );
  } finally {
    server.close();
  }
});
