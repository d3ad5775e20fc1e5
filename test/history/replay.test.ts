import test from 'ava';
import { Redis } from 'ioredis';
import { sql } from 'slonik';
import { z } from 'zod';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { PRESETS } from '../../shared/engine/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { TEST_REDIS_URL } from '../helpers/testRedis.ts';
import { postSimulation, rawData } from '../simulations/postSimulation.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { getWithKey, insertLedgerRow } from './historyFixtures.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

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

/**
 * The formats a replay must reproduce, each with the part of the body that must be byte-identical to the
 * first answer. JSON: everything but metadata.compute_ms, which is a measurement. Output formats that
 * carry only records (docs/formats.md) compare the whole body: add them here as
 * `{ accept: 'application/x-ndjson', fixed: (text) => text }` and `{ accept: 'text/csv', fixed: (text) => text }`.
 */
const FORMATS: readonly { readonly accept: string; readonly fixed: (text: string) => string }[] = [
  { accept: 'application/json', fixed: (text) => text.replace(/"compute_ms":\d+/, '"compute_ms":0') },
  // Added with the output formats (h13 merged): records only, so the whole body is byte-identical.
  { accept: 'application/x-ndjson', fixed: (text) => text },
  { accept: 'text/csv', fixed: (text) => text },
  // Binary: compared as bytes below (text would blur bytes that are not UTF-8).
  { accept: 'application/vnd.apache.parquet', fixed: (text) => text },
];

const IDENTITY_HEADERS = ['simulation-id', 'simulation-preset', 'simulation-profile', 'simulation-seed', 'simulation-engine-version'];

const ledgerCount = async (accountId: string): Promise<number> => {
  await ledgerWritten(app.services);
  return app.services.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM simulations WHERE account_id = ${accountId}`);
};

const usageOf = async (key: string): Promise<any> => (await getWithKey(app, '/v1/usage', key)).body.usage;

for (const preset of PRESETS) {
  test(`a completed ${preset.name} run's records are served again, identical to the first answer, in every format`, async (t) => {
    const me = await buildCaller(app.services.pool, {});
    for (const format of FORMATS) {
      const first = await postSimulation(app, { preset: preset.name, num_interactions: 300 }, { key: me.key, headers: { Accept: format.accept } });
      t.is(first.status, 200, first.text);
      const id = first.body?.simulation_id ?? first.headers.get('simulation-id');
      const again = await getWithKey(app, `/v1/simulations/${id}/records`, me.key, { Accept: format.accept });
      t.is(again.status, 200, again.text);
      t.is(again.headers.get('content-type'), first.headers.get('content-type'));
      t.is(again.headers.get('cache-control'), 'no-store');
      t.is(format.fixed(again.text), format.fixed(first.text), `${preset.name} ${format.accept}`);
      if (format.accept !== 'application/json') {
        t.true(again.bytes.equals(first.bytes), `${preset.name} ${format.accept}: the replayed bytes differ`);
      }
      // The run's identity in every format: the recorded simulation id, not the replay job's own.
      for (const name of IDENTITY_HEADERS) {
        t.is(again.headers.get(name), first.headers.get(name), name);
      }
      t.is(again.headers.get('simulation-id'), id);
      if (format.accept === 'application/json') {
        // The records, as bytes and as values, and the run's identity.
        t.is(rawData(again.text), rawData(first.text));
        t.deepEqual(again.body.data, first.body.data);
        t.like(again.body, { simulation_id: id, preset: preset.name, seed: first.body.seed, profile: first.body.profile });
        t.is(again.body.metadata.service_version, first.body.metadata.service_version);
      }
    }
  });
}

test('a streamed run (many chunks) is replayed byte for byte in NDJSON, CSV and Parquet, and its slot is freed once it ends', async (t) => {
  const me = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  for (const accept of ['application/x-ndjson', 'text/csv', 'application/vnd.apache.parquet']) {
    // Well past one 256 KiB chunk in every format (Parquet: several row groups too).
    const first = await postSimulation(app, { preset: 'finance', num_interactions: 100_000 }, { key: me.key, headers: { Accept: accept } });
    t.is(first.status, 200, first.text.slice(0, 300));
    t.true(first.bytes.length > 256 * 1024);
    const id = first.headers.get('simulation-id');
    const again = await getWithKey(app, `/v1/simulations/${id}/records`, me.key, { Accept: accept });
    t.is(again.status, 200, again.text.slice(0, 300));
    t.is(again.headers.get('simulation-id'), id);
    t.true(again.bytes.equals(first.bytes), `${accept}: the replayed body differs`);
  }
  // One slot: the replays above freed theirs, or this one would be refused 429.
  const id = (await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key: me.key })).body.simulation_id;
  t.is((await getWithKey(app, `/v1/simulations/${id}/records`, me.key)).status, 200);
});

test('a replay counts against no monthly quota and writes no ledger row, but passes the rate limiter', async (t) => {
  const me = await buildCaller(app.services.pool, { requests_per_minute: 4, monthly_requests: 1, monthly_interactions: 50 });
  const first = await postSimulation(app, { preset: 'finance', num_interactions: 50, seed: 3 }, { key: me.key });
  t.is(first.status, 200, first.text);
  const usage = await usageOf(me.key);
  t.deepEqual(usage, { requests: 1, interactions: 50 });
  const rows = await ledgerCount(me.accountId);

  // The quota is used up, yet the run can be served again: twice, within the rate limit of 4.
  for (const remaining of [2, 1]) {
    const again = await getWithKey(app, `/v1/simulations/${first.body.simulation_id}/records`, me.key);
    t.is(again.status, 200, again.text);
    t.is(again.headers.get('ratelimit-policy'), '"rpm";q=4;w=60');
    t.regex(again.headers.get('ratelimit') ?? '', new RegExp(`^"rpm";r=${remaining};t=\\d+$`));
  }
  t.deepEqual(await usageOf(me.key), usage);
  t.is(await ledgerCount(me.accountId), rows);
  // A new run is still refused by the quota (403), which also takes the rate window's last place.
  const refused = await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: me.key });
  t.is(refused.status, 403);
  t.is(refused.body.error.details.code, 'monthly_request_quota_exceeded');
  // Four requests in the window: the fifth, a replay, is rate limited like any request.
  const limited = await getWithKey(app, `/v1/simulations/${first.body.simulation_id}/records`, me.key);
  t.is(limited.status, 429, limited.text);
  t.like(limited.body.error.details, { code: 'rate_limit_exceeded', limit: 4 });
  t.is(Number(limited.headers.get('retry-after')), limited.body.error.details.retry_after);
});

test('replays of one run in flight together each get the whole run', async (t) => {
  const me = await buildCaller(app.services.pool, { max_concurrent_simulations: 4 });
  const first = await postSimulation(app, { preset: 'healthcare', num_interactions: 2000, seed: 8 }, { key: me.key });
  t.is(first.status, 200, first.text);
  const replays = await Promise.all(
    [1, 2, 3, 4].map(() => getWithKey(app, `/v1/simulations/${first.body.simulation_id}/records`, me.key)),
  );
  for (const replay of replays) {
    t.is(replay.status, 200, replay.text);
    t.is(rawData(replay.text), rawData(first.text));
    t.is(replay.body.simulation_id, first.body.simulation_id);
  }
});

test('a run that did not complete answers 409 simulation_not_completed, and a retired engine 410 engine_version_retired', async (t) => {
  const me = await buildCaller(app.services.pool, {});
  for (const status of ['queued', 'failed', 'timed_out'] as const) {
    const id = await insertLedgerRow(app.services.pool, me.accountId, { status });
    const response = await getWithKey(app, `/v1/simulations/${id}/records`, me.key);
    t.is(response.status, 409, status);
    t.is(response.body.error.details.code, 'simulation_not_completed');
  }
  const old = await insertLedgerRow(app.services.pool, me.accountId);
  await app.services.pool.query(sql.type(z.object({}))`UPDATE simulations SET service_version = '0.9.0' WHERE id = ${old}`);
  const retired = await getWithKey(app, `/v1/simulations/${old}/records`, me.key);
  t.is(retired.status, 410, retired.text);
  t.is(retired.body.error.details.code, 'engine_version_retired');
  // A run recorded straight in the ledger (as any past run) replays from its inputs alone.
  const recorded = await insertLedgerRow(app.services.pool, me.accountId, { preset: 'education', profile: 'slow_inaccurate' });
  const replayed = await getWithKey(app, `/v1/simulations/${recorded}/records`, me.key);
  t.is(replayed.status, 200, replayed.text);
  t.like(replayed.body, { simulation_id: recorded, preset: 'education', profile: 'slow_inaccurate', seed: 7, num_interactions: 10 });
  // The ledger row's engine is the column's default, 1.0.0 (as migration 0008 fills old rows).
  const fresh = await postSimulation(app, { preset: 'education', profile: 'slow_inaccurate', seed: 7, num_interactions: 10, engine_version: '1' }, { key: me.key });
  t.is(rawData(replayed.text), rawData(fresh.text));
});

test('a replay takes a concurrency slot while it runs and frees it after', async (t) => {
  // An app of its own, so its worker can be started late without holding up the other tests.
  const own = await startTestApp({ database: app.database });
  t.teardown(() => own.close());
  const me = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  let ownWorker = await startTestWorker({ redisPrefix: own.redisPrefix });
  const first = await postSimulation(own, { preset: 'finance', num_interactions: 20, seed: 4 }, { key: me.key });
  t.is(first.status, 200, first.text);
  await ownWorker.close();

  // No worker: the replay waits in the queue, holding the account's one slot.
  const slots = limitKeys(own.redisPrefix, me.accountId, 'unused').slots;
  const pending = getWithKey(own, `/v1/simulations/${first.body.simulation_id}/records`, me.key);
  await eventually(async () => ((await redis.zcard(slots)) === 1 ? true : undefined), 10_000, 10);
  const run = await postSimulation(own, { preset: 'finance', num_interactions: 1 }, { key: me.key });
  t.is(run.status, 429, run.text);
  t.like(run.body.error.details, { code: 'concurrency_limit_exceeded', limit: 1 });
  const replay = await getWithKey(own, `/v1/simulations/${first.body.simulation_id}/records`, me.key);
  t.is(replay.status, 429, replay.text);
  t.like(replay.body.error.details, { code: 'concurrency_limit_exceeded', limit: 1 });
  t.is(Number(replay.headers.get('retry-after')), replay.body.error.details.retry_after);

  ownWorker = await startTestWorker({ redisPrefix: own.redisPrefix });
  t.teardown(() => ownWorker.close());
  t.is((await pending).status, 200);
  t.is(await redis.zcard(slots), 0);
  // A refused replay and a finished one hold nothing: the next run is admitted.
  t.is((await postSimulation(own, { preset: 'finance', num_interactions: 1 }, { key: me.key })).status, 200);
});
