import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startRedisServer } from '../helpers/startRedisServer.ts';
import { startTestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { freePort } from '../helpers/freePort.ts';
import { startTcpProxy } from '../helpers/startTcpProxy.ts';
import { postSimulation } from './postSimulation.ts';
import { streamSimulation } from './streamBody.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

// Faults on the reply path: Redis (a redis-server of the test's own) flushed under a waiting run, and the
// data plane's link from worker to API process broken mid-stream.

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
  await ledgerWritten(app.services);
  const rows = await app.services.pool.any(sql.type(z.object({ status: z.string() }))`SELECT status FROM simulations WHERE account_id = ${caller.accountId}`);
  t.deepEqual(rows, [{ status: 'failed' }]);
});

test('a data plane link cut mid-stream: the worker sends again from where the client\'s body stands; the body is whole, byte-identical, and charged once', async (t) => {
  // The worker reaches the API process's data plane through a proxy that can break the link.
  const proxy = await startTcpProxy(0);
  t.teardown(() => proxy.close());
  const planePort = await freePort();
  proxy.forwardTo(planePort);
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '120000', DATA_PLANE_PORT: String(planePort), DATA_PLANE_ADVERTISE_PORT: String(proxy.port) } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const caller = await buildCaller(app.services.pool, {});

  let cut = false;
  const response = await streamSimulation(app.url, {
    key: caller.key,
    body: { preset: 'finance', num_interactions: 1_000_000, seed: 12 },
    accept: 'application/x-ndjson',
    needle: '\n',
    digest: true,
    onBytes: (bytes) => {
      if (!cut && bytes > 300_000) {
        cut = true;
        proxy.resetOpen();
      }
    },
  });
  t.true(cut);
  t.is(response.status, 200);
  t.is(response.error, undefined);
  t.is(response.count, 1_000_000);
  const id = response.headers.get('simulation-id') ?? '';
  const replay = await streamSimulation(app.url, { key: caller.key, path: `/v1/simulations/${id}/records`, accept: 'application/x-ndjson', needle: '\n', digest: true });
  t.is(replay.digest, response.digest);
  const usage = (await (await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${caller.key}` } })).json()) as { usage: unknown };
  t.deepEqual(usage.usage, { requests: 1, interactions: 1_000_000 });
});

test('a run whose resumption failed (its worker could not reach the data plane again) answers 503 service_unavailable at once, given back, not 504 at its deadline', async (t) => {
  const proxy = await startTcpProxy(0);
  t.teardown(() => proxy.close());
  const planePort = await freePort();
  proxy.forwardTo(planePort);
  // A deadline the test would notice: main answered 504 only then.
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '60000', DATA_PLANE_PORT: String(planePort), DATA_PLANE_ADVERTISE_PORT: String(proxy.port) } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const caller = await buildCaller(app.services.pool, {});

  // The link from worker to API process is down and stays down: every attempt the worker makes is lost,
  // and it gives the job up.
  await proxy.cut();
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 3 }, { key: caller.key });
  t.is(response.status, 503, response.text);
  t.is(response.body.error.details.code, 'service_unavailable');
  t.is(response.headers.get('x-request-id'), response.body.error.request_id);
  t.truthy(response.headers.get('retry-after'));
  const rows = await eventually(async () => {
    const found = await app.services.pool.any(sql.type(z.object({ status: z.string() }))`SELECT status FROM simulations WHERE account_id = ${caller.accountId}`);
    return found.length === 1 ? found : undefined;
  });
  t.deepEqual(rows, [{ status: 'failed' }]);
  const usage = (await (await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${caller.key}` } })).json()) as { usage: unknown };
  t.deepEqual(usage.usage, { requests: 0, interactions: 0 });
});
