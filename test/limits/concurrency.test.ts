import test from 'ava';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { connectTestRedis } from '../helpers/testRedis.ts';
import type { RedisClient } from '../../shared/redis/createRedis.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

let app: TestApp;
let shortDeadline: TestApp;
let redis: RedisClient;

test.before(async () => {
  // Runs meant to finish get the default deadline, which a loaded machine does not miss.
  app = await startTestApp();
  // The same database and limits (one Redis prefix), with a deadline short enough to miss on purpose.
  shortDeadline = await startTestApp({ database: app.database, redisPrefix: app.redisPrefix, env: { SIMULATION_TIMEOUT_MS: '1500' } });
  redis = connectTestRedis();
});

test.after.always(async () => {
  redis?.disconnect();
  await shortDeadline?.close();
  await app?.close();
});

const usageOf = async (key: string): Promise<any> =>
  (await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } })).json();

// Tests in this file start and stop the worker themselves, so they run one at a time.

test.serial('with one concurrent simulation allowed, a second overlapping run answers 429 concurrency_limit_exceeded with Retry-After', async (t) => {
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  // No worker yet: the first run holds its slot while it waits in the queue.
  const first = postSimulation(app, { preset: 'finance', num_interactions: 5, seed: 1 }, { key: caller.key });
  const slots = limitKeys(app.redisPrefix, caller.accountId, 'unused').slots;
  await eventually(async () => ((await redis.zcard(slots)) > 0 ? true : undefined), 12_000, 10);
  const second = await postSimulation(app, { preset: 'finance', num_interactions: 5, seed: 2 }, { key: caller.key });
  t.is(second.status, 429);
  t.like(second.body.error.details, { code: 'concurrency_limit_exceeded', limit: 1 });
  t.is(Number(second.headers.get('retry-after')), second.body.error.details.retry_after);
  t.true(second.body.error.details.retry_after >= 1);
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  t.is((await first).status, 200);
  // The slot is free again once the first run is over.
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 5, seed: 3 }, { key: caller.key })).status, 200);
});

test.serial('a timed-out run answers 504, gives its request and interactions back and frees its slot', async (t) => {
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1, monthly_requests: 1, monthly_interactions: 10 });
  // No worker: the run cannot finish within the 1.5 s deadline.
  const timedOut = await postSimulation(shortDeadline, { preset: 'finance', num_interactions: 10, seed: 1 }, { key: caller.key });
  t.is(timedOut.status, 504);
  t.is(timedOut.body.error.details.code, 'simulation_timeout');
  t.like(await usageOf(caller.key), { usage: { requests: 0, interactions: 0 }, remaining: { requests: 1, interactions: 10 } });
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  // The whole quota and the only slot are available again.
  const retried = await postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 1 }, { key: caller.key });
  t.is(retried.status, 200);
  await ledgerWritten(app.services);
  t.is((await findSimulation(app.services.pool, retried.body.simulation_id))?.status, 'completed');
  t.like(await usageOf(caller.key), { usage: { requests: 1, interactions: 10 }, remaining: { requests: 0, interactions: 0 } });
});

test.serial("a crashed holder's slot frees when its lease ends", async (t) => {
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  const keys = limitKeys(app.redisPrefix, caller.accountId, 'unused');
  // A slot held by an API process that died mid-run: nobody will release it, only its lease ends it.
  const redisTime = await redis.time();
  const nowMs = Number(redisTime[0]) * 1000 + Math.floor(Number(redisTime[1]) / 1000);
  await redis.zadd(keys.slots, nowMs + 60_000, 'crashed-holder');
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const blocked = await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key });
  t.is(blocked.status, 429);
  t.is(blocked.body.error.details.code, 'concurrency_limit_exceeded');
  // The lease runs out.
  await redis.zadd(keys.slots, nowMs - 1, 'crashed-holder');
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 200);
});
