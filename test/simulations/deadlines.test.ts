import net from 'node:net';
import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { nextJobEvent } from '../helpers/nextJobEvent.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTcpProxy } from '../helpers/startTcpProxy.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { spawnWorkerProcess, startTestWorker } from '../helpers/startTestWorker.ts';
import { streamSimulation } from './streamBody.ts';
import { postSimulation } from './postSimulation.ts';
import { eventually } from '../helpers/eventually.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

const TIMEOUT_MS = 800;

const withKey = async (app: TestApp): Promise<{ accountId: string; key: string }> => {
  // A plan of its own: these runs are larger than any real plan's per-request maximum.
  const { accountId, key } = await buildCaller(app.services.pool, {});
  const account = { id: accountId };
  return { accountId: account.id, key };
};

const ledgerOf = async (app: TestApp, accountId: string) => {
  await ledgerWritten(app.services);
  return app.services.pool.any(sql.type(z.object({ id: z.string(), status: z.string(), started_at: z.string().nullable(), finished_at: z.string().nullable() }))`
    SELECT id, status, started_at, finished_at FROM simulations WHERE account_id = ${accountId}
  `);
};

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

  const [row] = await ledgerOf(app, accountId);
  t.like(row, { status: 'timed_out', started_at: null });
  t.truthy(row?.finished_at);
  t.is(await app.services.simulations.queue.getJob(row?.id ?? ''), undefined);
  t.is(await app.services.simulations.queue.count(), 0);

  // Nothing is left on the queue for a worker that turns up later.
  t.deepEqual(await app.services.simulations.queue.getJobCounts('wait', 'active', 'delayed', 'failed'), { wait: 0, active: 0, delayed: 0, failed: 0 });
});

test('a run its client holds back past the deadline is aborted in its thread: its answer ends, its job is done (cancelled, not failed), and the pool serves the next run', async (t) => {
  const timeoutMs = 3000;
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: String(timeoutMs) } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const { accountId, key } = await withKey(app);
  // A warm thread takes the job at once, so it is surely running when the deadline comes.
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key })).status, 200);

  // A client that stops reading after the headers holds the run at its flow-control window, so a
  // 1,000,000-record run (the largest a job may ask) is surely still going at the deadline.
  const active = nextJobEvent(worker.worker, 'active');
  // Every job that ends from here on, with how it ended (the warm-up's may still be among them).
  const ended: Array<{ readonly id: string | undefined; readonly result: unknown; readonly failure: string | undefined }> = [];
  worker.worker.on('completed', (job, result) => ended.push({ id: job.id, result, failure: undefined }));
  worker.worker.on('failed', (job, error) => ended.push({ id: job?.id, result: undefined, failure: error.message }));
  const response = await fetch(`${app.url}/v1/simulations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
    body: JSON.stringify({ preset: 'finance', num_interactions: 1_000_000, seed: 1 }),
  });
  t.teardown(() => response.body?.cancel().catch(() => undefined));
  const [job] = await active;
  // 200 once the first bytes left (the body is then cut at the deadline, never whole).
  t.is(response.status, 200);
  // The deadline came while the run waited on its client's back-pressure: the client's doing, so the run
  // is settled like a client that left (docs/fair-use.md), not given back as timed_out.
  const row = await eventually(async () => (await ledgerOf(app, accountId)).find((entry) => entry.status !== 'completed'));
  t.like(row, { status: 'cancelled' });

  // The worker aborts the thread at the same deadline, and its job is done, not failed: a run its client
  // held back is the client's doing (docs/fair-use.md), never a red bar in the queue's dashboard.
  const outcome = await eventually(() => ended.find((entry) => entry.id === row?.id), 60_000);
  t.is(job.id, row?.id);
  t.deepEqual(outcome, { id: row?.id, result: 'cancelled', failure: undefined });

  const next = await postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 1 }, { key });
  t.is(next.status, 200);
});

test.serial('a run the service is behind on at its deadline (its worker stopped, its client reading everything sent) answers a cut body, is ledgered timed_out, and its job fails: the worker takes the API process\'s word', async (t) => {
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '3000' } });
  t.teardown(() => app.close());
  const worker = await spawnWorkerProcess({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.stop(1000));
  const { accountId, key } = await withKey(app);

  // The worker is frozen once the first bytes are in: the client reads all it was sent and waits for more.
  const response = await streamSimulation(app.url, {
    key,
    body: { preset: 'finance', num_interactions: 1_000_000, seed: 4 },
    accept: 'application/x-ndjson',
    needle: '\n',
    onFirstBytes: () => worker.child.kill('SIGSTOP'),
  });
  // Thawed once the API process has given up on the run: what it said at the deadline is waiting for it.
  worker.child.kill('SIGCONT');
  t.is(response.status, 200);
  t.truthy(response.error, 'the body must not end cleanly');
  const row = await eventually(async () => (await ledgerOf(app, accountId))[0]);
  t.like(row, { status: 'timed_out' });

  // Failed, not completed `cancelled` (a completed job is removed; a failed one is kept with its reason).
  const reason = await eventually(async () => {
    const job = await app.services.simulations.queue.getJob(row.id);
    if (job === undefined) {
      return 'completed';
    }
    return (await job.getState()) === 'failed' ? job.failedReason : undefined;
  }, 60_000);
  t.is(reason, 'deadline passed during the run');
});

test('Redis unreachable from the start: 503 service_unavailable at once, and nothing is admitted', async (t) => {
  const app = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` } });
  t.teardown(() => app.close());
  const { accountId, key } = await withKey(app);

  const response = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key });
  t.is(response.status, 503, response.text);
  t.is(response.body.error.details.code, 'service_unavailable');
  t.is(response.headers.get('retry-after'), String(response.body.error.details.retry_after));
  t.deepEqual(await ledgerOf(app, accountId), []);
});

test('Redis lost while serving: 503 service_unavailable at once instead of a hang', async (t) => {
  const proxy = await startTcpProxy(6379);
  t.teardown(() => proxy.close());
  const app = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
  t.teardown(() => app.close());
  // The one Redis behind the proxy, on a cluster pass too (test/cluster/faults.test.ts is the cluster's own).
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix, redisUrl: 'redis://127.0.0.1:6379' });
  t.teardown(() => worker.close());
  const { accountId, key } = await withKey(app);

  const before = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key });
  t.is(before.status, 200);
  await proxy.cut();
  // At once, not once the process has seen its connection go: a request in the instant before that meets
  // a socket ioredis has not yet noticed is dead, and is a 503 all the same.
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key });
  t.is(response.status, 503, response.text);
  t.is(response.body.error.details.code, 'service_unavailable');
  const rows = await ledgerOf(app, accountId);
  t.deepEqual(rows.map((row) => row.status), ['completed']);
  t.like(await findSimulation(app.services.pool, before.body.simulation_id), { status: 'completed' });
});

test('Redis link cut while the request\'s own command is in flight: 503 service_unavailable at once, neither a 500 nor a wait for Redis', async (t) => {
  const proxy = await startTcpProxy(6379);
  t.teardown(() => proxy.close());
  const app = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
  t.teardown(() => app.close());
  const { accountId, key } = await withKey(app);

  // The first command that names the account (the principal or the limits) is sent, and the link dies
  // under it before Redis sees it; Redis stays out of reach.
  const cut = proxy.cutOnRequest(accountId);
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key });
  await cut;
  t.is(response.status, 503, response.text);
  t.is(response.body.error.details.code, 'service_unavailable');
  t.is(response.headers.get('retry-after'), String(response.body.error.details.retry_after));
  t.deepEqual(await ledgerOf(app, accountId), []);
});
