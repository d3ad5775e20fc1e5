import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildCaller, recordCompletedUsage } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import { publishAuthChange } from '../../shared/auth/authVersion.ts';
import { limitKeys } from '../../api/limits/limitKeys.ts';

// The domain clock: mid-November 2026, movable by tests that cross a month.
let clock = new Date('2026-11-15T12:00:00.000Z');
let app: TestApp;
let stopWorker: () => Promise<void>;

test.before(async () => {
  app = await startTestApp({ now: () => clock });
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 1 });
  stopWorker = () => worker.close();
});

test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
});

const getUsage = async (key: string): Promise<any> => {
  const response = await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } });
  return { status: response.status, body: await response.json() };
};

test.serial('GET /v1/usage reports the plan, the calendar month in UTC, usage and remaining exactly', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'free' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 40, seed: 3 }, { key })).status, 200);
  const usage = await getUsage(key);
  t.is(usage.status, 200);
  t.deepEqual(usage.body, {
    plan: {
      name: 'free',
      monthly_requests: 100,
      monthly_interactions: 10000,
      max_interactions_per_request: 1000,
      requests_per_minute: 5,
      max_concurrent_simulations: 1,
    },
    period: { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' },
    usage: { requests: 1, interactions: 40 },
    remaining: { requests: 99, interactions: 9960 },
  });
});

test('with 100 interactions left, 10 simultaneous requests of 20 admit exactly 5; the rest are 403 monthly_interaction_quota_exceeded', async (t) => {
  const caller = await buildCaller(app.services.pool, { monthly_interactions: 1000 });
  await recordCompletedUsage(app.services.pool, caller.accountId, clock, { requests: 9, interactions: 900 });
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, index) => postSimulation(app, { preset: 'education', num_interactions: 20, seed: index }, { key: caller.key })),
  );
  t.is(responses.filter((response) => response.status === 200).length, 5);
  const refused = responses.filter((response) => response.status === 403);
  t.is(refused.length, 5);
  for (const response of refused) {
    t.like(response.body.error.details, { code: 'monthly_interaction_quota_exceeded', limit: 1000, used: 1000, requested: 20, resets_at: '2026-12-01T00:00:00.000Z' });
  }
  t.like((await getUsage(caller.key)).body, { usage: { requests: 14, interactions: 1000 }, remaining: { interactions: 0 } });
});

test('with 2 requests left, 10 simultaneous requests admit exactly 2; the rest are 403 monthly_request_quota_exceeded', async (t) => {
  const caller = await buildCaller(app.services.pool, { monthly_requests: 5 });
  await recordCompletedUsage(app.services.pool, caller.accountId, clock, { requests: 3, interactions: 3 });
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, index) => postSimulation(app, { preset: 'healthcare', num_interactions: 5, seed: index }, { key: caller.key })),
  );
  t.is(responses.filter((response) => response.status === 200).length, 2);
  const refused = responses.filter((response) => response.status === 403);
  t.is(refused.length, 8);
  for (const response of refused) {
    t.like(response.body.error.details, { code: 'monthly_request_quota_exceeded', limit: 5, used: 5, resets_at: '2026-12-01T00:00:00.000Z' });
  }
});

test('1001 interactions on the free plan answer 403 interactions_per_request_exceeded and consume no quota', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'free' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 1001 }, { key });
  t.is(response.status, 403);
  t.like(response.body.error, { status_code: 403, details: { code: 'interactions_per_request_exceeded', limit: 1000, requested: 1001 } });
  t.like((await getUsage(key)).body, { usage: { requests: 0, interactions: 0 } });
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1000 }, { key })).status, 200);
});

test('a refused request consumes nothing: after a quota refusal the remaining quota is still usable in full', async (t) => {
  const caller = await buildCaller(app.services.pool, { monthly_interactions: 50 });
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 51 }, { key: caller.key })).status, 403);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 50 }, { key: caller.key })).status, 200);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 403);
});

test.serial('a new UTC month starts at zero', async (t) => {
  const caller = await buildCaller(app.services.pool, { monthly_requests: 1 });
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 200);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 403);
  const previous = clock;
  clock = new Date('2026-12-01T00:00:00.000Z');
  try {
    t.like((await getUsage(caller.key)).body, {
      period: { start: '2026-12-01T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' },
      usage: { requests: 0, interactions: 0 },
      remaining: { requests: 1 },
    });
    t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 200);
  } finally {
    clock = previous;
  }
});

test.serial("the monthly counter expires a day after the injected clock's month ends, not the machine's", async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const previous = clock;
  // Two minutes before a month's end, years away from the machine's own date.
  clock = new Date('2040-03-31T23:58:00.000Z');
  try {
    t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 200);
    const ttl = await app.services.redis.ttl(limitKeys(app.redisPrefix, caller.accountId, '2040-03').quota);
    // 120 s to the month's end + a day of grace, less whatever time this test took since the admission.
    t.true(ttl <= 120 + 86_400 && ttl > 86_400, `ttl ${ttl}`);
  } finally {
    clock = previous;
  }
});

test('a plan change applies on the next request', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'free' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 2000 }, { key })).status, 403);
  const { sql } = await import('slonik');
  const { z } = await import('zod');
  await app.services.pool.query(sql.type(z.object({}))`UPDATE accounts SET plan = 'pro' WHERE id = ${account.id}`);
  // What every code path that changes a plan does before it returns (the admin CLI's set-plan).
  await publishAuthChange(app.services.redis, app.redisPrefix, account.id);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 2000 }, { key })).status, 200);
  t.like((await getUsage(key)).body, { plan: { name: 'pro', max_interactions_per_request: 10000 } });
});
