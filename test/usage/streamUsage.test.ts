import anyTest, { type TestFn } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { monthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { readSse } from '../streams/readSse.ts';
import { insertSettledRuns } from './usageFixtures.ts';

const test = anyTest as TestFn<{ app: TestApp }>;

test.before(async (t) => {
  t.context.app = await startTestApp();
});

test.after.always(async (t) => {
  await t.context.app?.close();
});

interface Usage {
  readonly usage: { readonly requests: number; readonly interactions: number };
  readonly remaining: { readonly requests: number; readonly interactions: number };
}

test('GET /v1/usage counts a running stream\'s reservation and drops what a cancel gave back, as the quota in Redis does', async (t) => {
  const { app } = t.context;
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const usage = async (): Promise<Usage> => (await fetch(`${app.url}/v1/usage`, { headers })).json() as Promise<Usage>;
  const quota = async () => {
    const held = await app.services.redis.hgetall(limitKeys(app.redisPrefix, account.id, monthlyPeriod(new Date()).key).quota);
    return { requests: Number(held['requests']), interactions: Number(held['interactions']) };
  };

  // No stream worker runs here, so nothing is ever delivered: the cancel gives back the whole reservation.
  const created = await fetch(`${app.url}/v1/streams`, { method: 'POST', headers, body: JSON.stringify({ preset: 'finance', num_interactions: 7, speed: 0.01 }) });
  t.is(created.status, 201);
  const { id } = (await created.json()) as { id: string };
  const reserved = await usage();
  t.deepEqual(reserved.usage, { requests: 1, interactions: 7 });
  t.deepEqual(reserved.remaining, { requests: 10_000 - 1, interactions: 5_000_000 - 7 });
  t.deepEqual(await quota(), reserved.usage);

  t.is((await fetch(`${app.url}/v1/streams/${id}`, { method: 'DELETE', headers })).status, 200);
  const after = await usage();
  t.deepEqual(after.usage, { requests: 0, interactions: 0 });
  t.deepEqual(await quota(), after.usage);
});

interface Counts {
  readonly runs: number;
  readonly requests: number;
  readonly interactions: number;
}

interface Daily {
  readonly totals: Counts & { readonly by_status: Record<string, Counts> };
  readonly days: readonly (Counts & { readonly date: string })[];
  readonly credentials: readonly (Counts & { readonly credential: { readonly api_key_id?: string }; readonly by_status: Record<string, Counts> })[];
}

test('GET /v1/usage/daily counts streams as GET /v1/usage does: a running one its reservation, an ended one its charge, by day and credential', async (t) => {
  const { app } = t.context;
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const [first, second] = [await buildApiKey(app.services.pool, account.id), await buildApiKey(app.services.pool, account.id)];
  const as = (key: string) => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' });
  const create = async (key: string, body: Record<string, unknown>): Promise<{ id: string; events_url: string }> => {
    const created = await fetch(`${app.url}/v1/streams`, { method: 'POST', headers: as(key), body: JSON.stringify(body) });
    t.is(created.status, 201);
    return (await created.json()) as { id: string; events_url: string };
  };
  // Running: its whole reservation, one request and 7 interactions.
  await create(first.key, { preset: 'finance', num_interactions: 7, speed: 0.01 });
  // Completed (read to its end: the reader completes it): charged in full.
  const done = await create(first.key, { preset: 'mobile_app', num_interactions: 5, seed: 2, population: 2, start_time: '2026-01-01T00:00:00.000Z', speed: 100_000 });
  t.is(JSON.parse((await readSse(`${app.url}${done.events_url}`, first.key)).end ?? '{}')['status'], 'completed');
  // Cancelled after 3 records were due (as a stream worker records it): the request and those 3.
  const part = await create(second.key, { preset: 'finance', num_interactions: 9, speed: 0.01 });
  await app.services.pool.query(sql.type(z.object({}))`UPDATE streams SET delivered = 3 WHERE id = ${part.id}`);
  t.is((await fetch(`${app.url}/v1/streams/${part.id}`, { method: 'DELETE', headers: as(second.key) })).status, 200);
  // Cancelled before anything was due: nothing.
  const none = await create(second.key, { preset: 'finance', num_interactions: 11, speed: 0.01 });
  t.is((await fetch(`${app.url}/v1/streams/${none.id}`, { method: 'DELETE', headers: as(second.key) })).status, 200);
  // And a simulation, as the ledger records it.
  await insertSettledRuns(app.services.pool, [{ accountId: account.id, status: 'completed', numInteractions: 40, apiKeyId: first.id }]);

  const usage = (await (await fetch(`${app.url}/v1/usage`, { headers: as(first.key) })).json()) as Usage;
  t.deepEqual(usage.usage, { requests: 1 + 1 + 1 + 0 + 1, interactions: 7 + 5 + 3 + 0 + 40 });
  const daily = (await (await fetch(`${app.url}/v1/usage/daily`, { headers: as(first.key) })).json()) as Daily;
  t.deepEqual({ requests: daily.totals.requests, interactions: daily.totals.interactions }, usage.usage);
  t.is(daily.totals.runs, 5);
  t.like(daily.totals.by_status, {
    queued: { runs: 1, requests: 1, interactions: 7 },
    completed: { runs: 2, requests: 2, interactions: 45 },
    cancelled: { runs: 2, requests: 1, interactions: 3 },
    failed: { runs: 0, requests: 0, interactions: 0 },
  });
  const today = daily.days.find((day) => day.date === new Date().toISOString().slice(0, 10));
  t.like(today, { runs: 5, requests: 4, interactions: 55 });
  const byKey = new Map(daily.credentials.map((entry) => [entry.credential.api_key_id, entry]));
  t.like(byKey.get(first.id), { runs: 3, requests: 3, interactions: 52 });
  t.like(byKey.get(second.id), { runs: 2, requests: 1, interactions: 3 });
  // One credential's days and totals.
  const ofSecond = (await (await fetch(`${app.url}/v1/usage/daily?credential=${second.id}`, { headers: as(first.key) })).json()) as Daily;
  t.like(ofSecond.totals, { runs: 2, requests: 1, interactions: 3 });
  t.like(ofSecond.totals.by_status, { cancelled: { runs: 2, requests: 1, interactions: 3 }, queued: { runs: 0 } });
});
