import test from 'ava';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { connectTestRedis } from '../helpers/testRedis.ts';
import type { RedisClient } from '../../shared/redis/createRedis.ts';
import { postSimulation } from '../simulations/postSimulation.ts';

let app: TestApp;
let redis: RedisClient;
let stopWorker: () => Promise<void>;

test.before(async () => {
  app = await startTestApp();
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 1 });
  stopWorker = () => worker.close();
  redis = connectTestRedis();
});

test.after.always(async () => {
  redis?.disconnect();
  await stopWorker?.();
  await app?.close();
});

const SMALL = { preset: 'finance', num_interactions: 1, seed: 1 };

/** Moves every entry of the account's rate window `seconds` into the past, as if that time had gone by. */
const ageRateWindow = async (accountId: string, seconds: number, count = Number.POSITIVE_INFINITY): Promise<void> => {
  const key = limitKeys(app.redisPrefix, accountId, 'unused').rateWindow;
  const entries = await redis.zrange(key, 0, -1, 'WITHSCORES');
  for (let index = 0; index < entries.length && index / 2 < count; index += 2) {
    await redis.zadd(key, Number(entries[index + 1]) - seconds * 1_000_000, entries[index] as string);
  }
};

test('50 simultaneous requests on a 5-per-minute plan: exactly 5 admitted and 45 answered 429 rate_limit_exceeded with Retry-After equal to details.retry_after', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 5 });
  const responses = await Promise.all(Array.from({ length: 50 }, () => postSimulation(app, SMALL, { key: caller.key })));
  const limited = responses.filter((response) => response.status === 429);
  t.is(responses.filter((response) => response.status === 200).length, 5);
  t.is(limited.length, 45);
  for (const response of limited) {
    t.is(response.body.error.details.code, 'rate_limit_exceeded');
    t.is(response.body.error.details.limit, 5);
    const retryAfter = Number(response.headers.get('retry-after'));
    t.is(retryAfter, response.body.error.details.retry_after);
    t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60);
    t.is(response.headers.get('ratelimit-policy'), '"rpm";q=5;w=60');
    t.regex(response.headers.get('ratelimit') ?? '', /^"rpm";r=0;t=\d+$/);
  }
});

test('the free plan: 6 sequential requests give five 200s, then a 429', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'free' });
  const caller = await buildApiKey(app.services.pool, account.id);
  const statuses: number[] = [];
  for (let index = 0; index < 6; index += 1) {
    statuses.push((await postSimulation(app, SMALL, { key: caller.key })).status);
  }
  t.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
});

test('every answer past authentication carries RateLimit-Policy and RateLimit with the remaining count', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 5 });
  const first = await postSimulation(app, SMALL, { key: caller.key });
  t.is(first.status, 200);
  t.is(first.headers.get('ratelimit-policy'), '"rpm";q=5;w=60');
  t.regex(first.headers.get('ratelimit') ?? '', /^"rpm";r=4;t=(59|60)$/);
  const invalid = await postSimulation(app, { preset: 'finance' }, { key: caller.key });
  t.is(invalid.status, 422);
  t.regex(invalid.headers.get('ratelimit') ?? '', /^"rpm";r=3;t=\d+$/);
  const unauthenticated = await postSimulation(app, SMALL);
  t.is(unauthenticated.status, 401);
  t.is(unauthenticated.headers.get('ratelimit'), null);
});

test('requests refused after the rate limiter (invalid JSON, validation, per-request maximum) keep their place in the window', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 3, max_interactions_per_request: 10 });
  t.is((await postSimulation(app, '{"preset":', { key: caller.key })).status, 400);
  t.is((await postSimulation(app, { preset: 'nope', num_interactions: 1 }, { key: caller.key })).status, 422);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 11 }, { key: caller.key })).status, 403);
  const fourth = await postSimulation(app, SMALL, { key: caller.key });
  t.is(fourth.status, 429);
  t.is(fourth.body.error.details.code, 'rate_limit_exceeded');
});

test('rejected 429s do not count: once the window slides past the admitted requests, requests are admitted again', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 2 });
  t.is((await postSimulation(app, SMALL, { key: caller.key })).status, 200);
  t.is((await postSimulation(app, SMALL, { key: caller.key })).status, 200);
  for (let index = 0; index < 5; index += 1) {
    t.is((await postSimulation(app, SMALL, { key: caller.key })).status, 429);
  }
  // Only the oldest entry leaves the window: exactly one more request fits.
  await ageRateWindow(caller.accountId, 61, 1);
  t.is((await postSimulation(app, SMALL, { key: caller.key })).status, 200);
  t.is((await postSimulation(app, SMALL, { key: caller.key })).status, 429);
  await ageRateWindow(caller.accountId, 61);
  t.is((await postSimulation(app, SMALL, { key: caller.key })).status, 200);
});

test('Retry-After counts down to the moment the oldest admitted request leaves the window', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 1 });
  t.is((await postSimulation(app, SMALL, { key: caller.key })).status, 200);
  await ageRateWindow(caller.accountId, 45);
  // The entry keeps ageing while the request travels: on a busy machine that can be seconds, so the
  // lower bound allows for the time this step took rather than for a fixed delay.
  const agedAt = Date.now();
  const limited = await postSimulation(app, SMALL, { key: caller.key });
  const travelled = Math.ceil((Date.now() - agedAt) / 1000);
  t.is(limited.status, 429);
  const retryAfter = Number(limited.headers.get('retry-after'));
  t.true(retryAfter >= 14 - travelled && retryAfter <= 16, `retry after ${retryAfter} (${travelled} s in flight)`);
});

test('a second API process sharing Redis enforces the same window: 20 requests split across both admit exactly 4', async (t) => {
  const other = await startTestApp({ database: app.database, redisPrefix: app.redisPrefix });
  t.teardown(() => other.close());
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 4 });
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, index) => postSimulation(index % 2 === 0 ? app : other, SMALL, { key: caller.key })),
  );
  t.is(responses.filter((response) => response.status === 200).length, 4);
  t.is(responses.filter((response) => response.status === 429).length, 16);
});
