import net from 'node:net';
import test from 'ava';
import { eventually } from '../helpers/eventually.ts';
import { sql } from 'slonik';
import { z } from 'zod';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { simulationResultKey } from '../../shared/jobs/resultKeys.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTcpProxy } from '../helpers/tcpProxy.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from './postSimulation.ts';

const TIMEOUT_MS = 800;

const withKey = async (app: TestApp): Promise<{ accountId: string; key: string }> => {
  // A plan of its own: these runs are larger than any real plan's per-request maximum.
  const { accountId, key } = await buildCaller(app.services.pool, {});
  const account = { id: accountId };
  return { accountId: account.id, key };
};

const ledgerOf = async (app: TestApp, accountId: string) =>
  app.services.pool.any(sql.type(z.object({ id: z.string(), status: z.string(), started_at: z.string().nullable(), finished_at: z.string().nullable() }))`
    SELECT id, status, started_at, finished_at FROM simulations WHERE account_id = ${accountId}
  `);

const closedPort = async (): Promise<number> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

test('a job no worker takes answers 504 simulation_timeout at the deadline, is taken off the queue, and is ledgered timed_out', async (t) => {
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: String(TIMEOUT_MS) } });
  t.teardown(() => app.close());
  const { accountId, key } = await withKey(app);

  const response = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key });
  t.is(response.status, 504, response.text);
  t.is(response.body.error.details.code, 'simulation_timeout');
  t.true(response.elapsedMs >= TIMEOUT_MS - 50, `answered after ${response.elapsedMs} ms`);
  t.true(response.elapsedMs < TIMEOUT_MS + 1500, `answered after ${response.elapsedMs} ms`);

  const [row] = await ledgerOf(app, accountId);
  t.like(row, { status: 'timed_out', started_at: null });
  t.truthy(row?.finished_at);
  t.is(await app.services.simulations.queue.getJob(row?.id ?? ''), undefined);
  t.is(await app.services.simulations.queue.count(), 0);

  // A worker that turns up later finds nothing to do.
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.is(await app.services.simulations.queue.getFailedCount(), 0);
});

test('a run still going at the deadline is aborted in its thread: 504, the job fails, and the pool serves the next run', async (t) => {
  const timeoutMs = 1500;
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: String(timeoutMs) } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const { accountId, key } = await withKey(app);
  // A warm thread takes the job at once, so it is surely running when the deadline comes.
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key })).status, 200);

  // Three million interactions take seconds; the deadline comes first.
  const pending = postSimulation(app, { preset: 'finance', num_interactions: 3_000_000, seed: 1 }, { key });
  const deadline = Date.now() + timeoutMs;
  let sawActive = false;
  while (!sawActive && Date.now() < deadline) {
    sawActive = (await app.services.simulations.queue.getActiveCount()) > 0;
    if (!sawActive) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  const response = await pending;
  t.true(sawActive, 'the job ran');
  t.is(response.status, 504, response.text.slice(0, 300));
  t.is(response.body.error.details.code, 'simulation_timeout');
  t.true(response.elapsedMs < timeoutMs + 1500, `answered after ${response.elapsedMs} ms`);
  const row = (await ledgerOf(app, accountId)).find((entry) => entry.status !== 'completed');
  t.like(row, { status: 'timed_out' });

  // The worker aborts at the same deadline the API answers at, so the job's failure may land a moment later.
  const failed = await eventually(async () => {
    const jobs = await app.services.simulations.queue.getFailed();
    return jobs.length > 0 ? jobs : undefined;
  }, 5000, 20);
  t.is(failed.length, 1);
  t.is(failed[0]?.id, row?.id);
  t.is(failed[0]?.failedReason, 'deadline passed during the run');
  t.is(await app.services.redis.exists(simulationResultKey(app.redisPrefix, row?.id ?? '')), 0);

  const next = await postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 1 }, { key });
  t.is(next.status, 200);
});

test('Redis unreachable from the start: 503 service_unavailable at once, and nothing is admitted', async (t) => {
  const app = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` } });
  t.teardown(() => app.close());
  const { accountId, key } = await withKey(app);

  const response = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key });
  t.is(response.status, 503, response.text);
  t.is(response.body.error.details.code, 'service_unavailable');
  t.is(response.headers.get('retry-after'), String(response.body.error.details.retry_after));
  t.true(response.elapsedMs < 1000, `answered after ${response.elapsedMs} ms`);
  t.deepEqual(await ledgerOf(app, accountId), []);
});

test('Redis lost while serving: 503 service_unavailable at once instead of a hang', async (t) => {
  const proxy = await startTcpProxy(6379);
  t.teardown(() => proxy.close());
  const app = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const { accountId, key } = await withKey(app);

  const before = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key });
  t.is(before.status, 200);
  await proxy.cut();
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key });
  t.is(response.status, 503, response.text);
  t.is(response.body.error.details.code, 'service_unavailable');
  t.true(response.elapsedMs < 1000, `answered after ${response.elapsedMs} ms`);
  const rows = await ledgerOf(app, accountId);
  t.deepEqual(rows.map((row) => row.status), ['completed']);
  t.like(await findSimulation(app.services.pool, before.body.simulation_id), { status: 'completed' });
});
