import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildAdmission, buildCaller } from '../helpers/limitFixtures.ts';
import { startRedisServer, type RedisServer } from '../helpers/startRedisServer.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { deleteRedisPrefix, TEST_REDIS } from '../helpers/testRedis.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

// On one Redis this file flushes a Redis server of its own, started on a free port, so no other program's
// data is ever lost. A Redis Cluster cannot be started per file here: there, losing the data is losing
// every key of this file's prefix (the service's and the queue's) on the test run's cluster.
const onCluster = TEST_REDIS.kind === 'cluster';

let app: TestApp;
let ownRedis: RedisServer | undefined;
let stopWorker: () => Promise<void>;

test.before(async () => {
  ownRedis = onCluster ? undefined : await startRedisServer();
  app = await startTestApp(ownRedis === undefined ? {} : { env: { REDIS_URL: ownRedis.url } });
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix, ...(ownRedis === undefined ? {} : { redisUrl: ownRedis.url }) });
  stopWorker = () => worker.close();
});

// The rows of the runs answered so far are committed first: this file is about what the ledger keeps
// (a loss while a row is in flight: test/simulations/ledgerAfterAnswer.test.ts).
const loseRedisData = async (): Promise<void> => {
  await ledgerWritten(app.services);
  await (ownRedis === undefined ? deleteRedisPrefix(app.redisPrefix) : ownRedis.admin.flushall());
};

test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
  await ownRedis?.stop();
});

const usageOf = async (key: string): Promise<any> =>
  (await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } })).json();

test.serial('after Redis is flushed, /v1/usage is unchanged and the monthly quotas are still enforced', async (t) => {
  const caller = await buildCaller(app.services.pool, { monthly_requests: 3, monthly_interactions: 30 });
  for (let seed = 0; seed < 2; seed += 1) {
    t.is((await postSimulation(app, { preset: 'mobile', num_interactions: 10, seed }, { key: caller.key })).status, 200);
  }
  const before = await usageOf(caller.key);
  t.like(before, { usage: { requests: 2, interactions: 20 } });

  await loseRedisData();

  t.deepEqual(await usageOf(caller.key), before);
  t.is((await postSimulation(app, { preset: 'mobile', num_interactions: 11 }, { key: caller.key })).status, 403);
  t.is((await postSimulation(app, { preset: 'mobile', num_interactions: 10 }, { key: caller.key })).status, 200);
  const exhausted = await postSimulation(app, { preset: 'mobile', num_interactions: 1 }, { key: caller.key });
  t.is(exhausted.status, 403);
  t.is(exhausted.body.error.details.code, 'monthly_request_quota_exceeded');
});

test.serial('simultaneous requests right after a flush still admit no more than the quota', async (t) => {
  const caller = await buildCaller(app.services.pool, { monthly_requests: 4 });
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 200);
  await loseRedisData();
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, seed) => postSimulation(app, { preset: 'finance', num_interactions: 1, seed }, { key: caller.key })),
  );
  t.is(responses.filter((response) => response.status === 200).length, 3);
  t.like(await usageOf(caller.key), { usage: { requests: 4 }, remaining: { requests: 0 } });
});

test.serial('runs in flight when Redis loses its data are counted again before the quota is rebuilt: no admission beyond it', async (t) => {
  const caller = await buildCaller(app.services.pool, { monthly_requests: 5 });
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 200);
  // Two runs this API process holds in flight (admitted, not settled): they exist only in Redis and here.
  const inFlight = [await buildAdmission(app.services, caller.accountId, 1), await buildAdmission(app.services, caller.accountId, 1)];
  await loseRedisData();
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, seed) => postSimulation(app, { preset: 'finance', num_interactions: 1, seed }, { key: caller.key })),
  );
  t.is(responses.filter((response) => response.status === 200).length, 2, '5 - 1 settled - 2 in flight');
  // They settle after the rebuild: each charged once, and the quota still holds.
  const now = Date.now();
  for (const admission of inFlight) {
    admission.lease.begin();
    await admission.lease.settle({ status: 'completed', body: Buffer.alloc(0), startedAt: now, finishedAt: now, computeMs: 1 });
  }
  t.like(await usageOf(caller.key), { usage: { requests: 5 }, remaining: { requests: 0 } });
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 403);
});

test.serial('after Redis is flushed, the rate window is rebuilt from the ledger: a free account that sent 5 gets 429 on its 6th within the minute', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'free' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  for (let seed = 0; seed < 5; seed += 1) {
    t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1, seed }, { key })).status, 200);
  }
  await loseRedisData();
  const sixth = await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key });
  t.is(sixth.status, 429);
  t.is(sixth.body.error.details.code, 'rate_limit_exceeded');
  t.true(Number(sixth.headers.get('retry-after')) >= 1);
  t.regex(sixth.headers.get('ratelimit') ?? '', /^"rpm";r=0;t=\d+$/);
  t.like(await usageOf(key), { usage: { requests: 5 } });
});

test.serial('many simultaneous requests right after a flush still admit no more than the rate limit', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 4 });
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 200);
  await loseRedisData();
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, seed) => postSimulation(app, { preset: 'finance', num_interactions: 1, seed }, { key: caller.key })),
  );
  t.is(responses.filter((response) => response.status === 200).length, 3);
  t.is(responses.filter((response) => response.status === 429).length, 7);
});
