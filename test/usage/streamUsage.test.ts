import anyTest, { type TestFn } from 'ava';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { monthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

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
