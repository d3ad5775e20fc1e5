import anyTest, { type TestFn } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

const test = anyTest as TestFn<{ app: TestApp }>;

test.before(async (t) => {
  t.context.app = await startTestApp();
});

test.after.always(async (t) => {
  await t.context.app?.close();
});

test.serial('GET /v1/plans lists every plan with its limits, smallest first, without credentials', async (t) => {
  const response = await fetch(`${t.context.app.url}/v1/plans`);
  t.is(response.status, 200);
  t.is(response.headers.get('cache-control'), 'public, max-age=60');
  t.deepEqual(await response.json(), [
    { name: 'free', requests_per_minute: 5, monthly_requests: 100, monthly_interactions: 10_000, max_interactions_per_request: 1000, max_concurrent_simulations: 1, max_active_api_keys: 1, max_models: 3, max_concurrent_streams: 1 },
    { name: 'pro', requests_per_minute: 60, monthly_requests: 10_000, monthly_interactions: 5_000_000, max_interactions_per_request: 10_000, max_concurrent_simulations: 4, max_active_api_keys: 5, max_models: 50, max_concurrent_streams: 5 },
    {
      name: 'enterprise',
      requests_per_minute: 1200,
      monthly_requests: 1_000_000,
      monthly_interactions: 500_000_000,
      max_interactions_per_request: 1_000_000,
      max_concurrent_simulations: 32,
      max_active_api_keys: 50,
      max_models: 500,
      max_concurrent_streams: 50,
    },
  ]);
});

test.serial('a plan an operator adds to the database is listed at once, in its place', async (t) => {
  await t.context.app.services.pool.query(sql.type(z.object({}))`
    INSERT INTO plans (name, requests_per_minute, monthly_requests, monthly_interactions, max_interactions_per_request, max_concurrent_simulations, max_active_api_keys)
    VALUES ('team', 20, 2000, 500000, 5000, 2, 3)
  `);
  const plans = (await (await fetch(`${t.context.app.url}/v1/plans`)).json()) as { name: string }[];
  t.deepEqual(
    plans.map((plan) => plan.name),
    ['free', 'team', 'pro', 'enterprise'],
  );
});
