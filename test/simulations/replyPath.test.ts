import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startRedisServer } from '../helpers/startRedisServer.ts';
import { startTestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from './postSimulation.ts';

// Faults on the reply path, each on a redis-server of the test's own: flushed, or its reader cut off.

test('Redis losing its data (FLUSHALL) fails the waiting request fast with 503 service_unavailable, not at the 30 s deadline', async (t) => {
  const redis = await startRedisServer();
  t.teardown(() => redis.stop());
  // The default deadline: a 504 would mean the loss went unnoticed until then.
  const app = await startTestApp({ env: { REDIS_URL: redis.url } });
  t.teardown(() => app.close());
  const caller = await buildCaller(app.services.pool, {});

  // No worker: the job waits on the queue until its data is gone.
  const pending = postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key: caller.key });
  await eventually(async () => ((await app.services.simulations.queue.getWaitingCount()) > 0 ? true : undefined), 10_000, 20);
  await redis.admin.flushall();

  const response = await pending;
  t.is(response.status, 503, response.text);
  t.is(response.body.error.details.code, 'service_unavailable');
  const rows = await app.services.pool.any(sql.type(z.object({ status: z.string() }))`SELECT status FROM simulations WHERE account_id = ${caller.accountId}`);
  t.deepEqual(rows, [{ status: 'failed' }]);
});

test('a reply appended while the API process\'s reader is reconnecting is still delivered (200, not 504)', async (t) => {
  const redis = await startRedisServer({ password: 'first' });
  t.teardown(() => redis.stop());
  const app = await startTestApp({ env: { REDIS_URL: redis.url, SIMULATION_TIMEOUT_MS: '60000' } });
  t.teardown(() => app.close());
  const caller = await buildCaller(app.services.pool, {});

  const pending = postSimulation(app, { preset: 'education', num_interactions: 25, seed: 8 }, { key: caller.key });
  await eventually(async () => ((await app.services.simulations.queue.getWaitingCount()) > 0 ? true : undefined), 10_000, 20);

  // Connections already in keep working; a new one needs the new password, so the reader, once killed,
  // cannot come back until the password is restored.
  await redis.admin.config('SET', 'requirepass', 'second');
  const readerId = async (): Promise<string | undefined> => {
    const clients = (await redis.admin.client('LIST')) as string;
    return /id=(\d+) .*name=bss:api:replies /.exec(clients)?.[1];
  };
  const id = await readerId();
  t.truthy(id, 'the reader is connected');
  await redis.admin.client('KILL', 'ID', id ?? '');

  // The worker finishes the job and appends its reply while the reader is away.
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix, redisUrl: `redis://:second@127.0.0.1:${redis.port}` });
  t.teardown(() => worker.close());
  const [stream] = await eventually(async () => {
    const keys = await redis.admin.keys(`${app.redisPrefix}:simulation-replies:*`);
    const withEntries = [];
    for (const key of keys) {
      if ((await redis.admin.xlen(key)) > 0) withEntries.push(key);
    }
    return withEntries.length > 0 ? withEntries : undefined;
  }, 20_000, 20);
  t.truthy(stream);
  t.is(await readerId(), undefined, 'the reader was away when the reply was appended');

  // The reader comes back and reads on from where it was.
  await redis.admin.config('SET', 'requirepass', 'first');
  const response = await pending;
  t.is(response.status, 200, response.text);
  t.is(response.body.seed, 8);
  t.is(response.body.data.length, 25);
});
