import { connect, type Socket } from 'node:net';
import test from 'ava';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { DatabasePool } from 'slonik';
import { sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../../shared/db/createDatabasePool.ts';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { ServiceProcess } from '../helpers/spawnService.ts';
import { spawnWorkerProcess, type WorkerProcess } from '../helpers/startTestWorker.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.ts';
import { createRedisPrefix, deleteRedisPrefix, TEST_REDIS_URL } from '../helpers/testRedis.ts';
import { eventually } from '../helpers/eventually.ts';
import { type PlainResponse, requestOnNewConnection, simulate, spawnApiProcess } from './spawnApiProcess.ts';

let database: TestDatabase;
let pool: DatabasePool;
let redis: Redis;
// Each test has a Redis prefix (so a queue) of its own: what one leaves behind when it fails cannot hold up the next.
const queues: { prefix: string; queue: Queue }[] = [];
const processes: (ServiceProcess | WorkerProcess)[] = [];

test.before(async () => {
  database = await createTestDatabase();
  pool = await createDatabasePool(database.url);
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
});

test.after.always(async () => {
  await Promise.all(processes.map((child) => child.stop(5000)));
  await Promise.all(queues.map(({ queue }) => queue.close()));
  redis?.disconnect();
  await pool?.end();
  await database?.drop();
  await Promise.all(queues.map(({ prefix }) => deleteRedisPrefix(prefix)));
});

/** A prefix of the test's own, and its handle on that prefix's queue: pausing it holds admitted jobs, so requests stay in flight. */
const ownQueue = (): { redisPrefix: string; queue: Queue } => {
  const prefix = createRedisPrefix();
  const queue = new Queue(SIMULATION_QUEUE, { connection: redis, prefix });
  queues.push({ prefix, queue });
  return { redisPrefix: prefix, queue };
};

const queuedJobs = async (queue: Queue): Promise<number> => {
  // A paused queue keeps its jobs waiting (bullmq 6 has no separate paused state).
  const counts = await queue.getJobCounts('waiting', 'prioritized');
  return (counts.waiting ?? 0) + (counts.prioritized ?? 0);
};

const ledgerStatuses = async (accountId: string): Promise<string[]> =>
  [...(await pool.anyFirst(sql.type(z.object({ status: z.string() }))`SELECT status FROM simulations WHERE account_id = ${accountId} ORDER BY status`))];

/**
 * Resolves once a new connection to the process is refused. On the way a connection may also be reset: one
 * the kernel completed while the listener was closing, which the process never accepted (the moment load
 * balancers are given SHUTDOWN_DELAY_MS to avoid), so only the refusal is the state looked for.
 */
const listenerClosed = (url: string): Promise<string> =>
  eventually(
    () => requestOnNewConnection(`${url}/health`).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => (error.code === 'ECONNREFUSED' ? error.code : undefined),
    ),
    30_000,
    50,
  );

/** A raw connection to the process, resolved once the process has surely accepted it (see below). */
const acceptedConnection = async (url: string): Promise<{ socket: Socket; received: () => string; ended: Promise<string> }> => {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const received = (): string => Buffer.concat(chunks).toString('latin1');
  // Its end, whichever way it comes: what arrived by then is what the client got.
  const ended = new Promise<string>((resolve) => {
    socket.once('close', () => resolve(received()));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  // The kernel completed this connection before the next one began, and libuv accepts a listener's pending
  // connections in order: once the next one is answered, this one has been accepted by the process.
  const probe = await requestOnNewConnection(`${url}/health`);
  if (probe.status !== 200) {
    throw new Error(`/health answered ${probe.status}`);
  }
  return { socket, received, ended };
};

const expectResults = (t: { is: <T>(actual: T, expected: T, message?: string) => void }, responses: readonly PlainResponse[], seeds: readonly number[]): void => {
  for (const [index, response] of responses.entries()) {
    t.is(response.status, 200, response.text.slice(0, 300));
    const body = JSON.parse(response.text) as { seed: number; data: unknown[] };
    t.is(body.seed, seeds[index]);
    t.is(body.data.length, 200);
  }
};

test.serial('on SIGTERM the API answers /ready 503, stops accepting, completes every in-flight request and exits 0 within its deadline', async (t) => {
  const { redisPrefix, queue } = ownQueue();
  const api = await spawnApiProcess({ databaseUrl: database.url, redisPrefix, env: { SHUTDOWN_DELAY_MS: '3000', SIMULATION_TIMEOUT_MS: '20000' } });
  processes.push(api);
  const worker = await spawnWorkerProcess({ redisPrefix, threads: 2 });
  processes.push(worker);
  const account = await buildAccount(pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(pool, account.id);
  t.is((await requestOnNewConnection(`${api.url}/ready`)).status, 200);

  await queue.pause();
  const seeds = [1, 2, 3, 4, 5, 6];
  const inFlight = Promise.all(seeds.map((seed) => simulate(api.url, key, { preset: 'finance', num_interactions: 200, seed })));
  await eventually(async () => ((await queuedJobs(queue)) === seeds.length ? true : undefined), 60_000);

  api.child.kill('SIGTERM');
  // Still serving during the delay, but not ready: a load balancer takes it out of rotation.
  const notReady = await eventually(async () => {
    const response = await requestOnNewConnection(`${api.url}/ready`, { keepAlive: true });
    return response.status === 503 ? response : undefined;
  }, 2500, 20);
  t.like(JSON.parse(notReady.text), { status: 'not_ready', database: 'connected', redis: 'connected' });
  // A client asking for keep-alive is told the connection closes, so its next request goes elsewhere.
  t.is(notReady.headers.connection, 'close');

  // After the delay it accepts no connection, while the admitted requests still wait for their jobs.
  await listenerClosed(api.url);
  t.is(api.child.exitCode, null, 'the process waits for its in-flight requests');

  await queue.resume();
  expectResults(t, await inFlight, seeds);
  const code = await api.exited;
  t.is(code, 0, api.output());
  // Code 0 is a clean drain: the backstop (delay + simulation timeout + 10 s) exits 1 and logs it.
  t.false(api.output().includes('api shutdown deadline passed'));
  t.true(api.output().includes('"msg":"api stopped"'));
  t.deepEqual(await ledgerStatuses(account.id), seeds.map(() => 'completed'));
  // Its worker leaves with it: the next test's jobs are for the workers it starts.
  t.is(await worker.stop(5000), 0);
});

test.serial('on SIGTERM a worker finishes its active job and exits 0; the jobs it leaves wait for the next worker and none is lost', async (t) => {
  const { redisPrefix, queue } = ownQueue();
  const api = await spawnApiProcess({ databaseUrl: database.url, redisPrefix, env: { STREAM_STALL_TIMEOUT_MS: '120000', SIMULATION_TIMEOUT_MS: '120000' } });
  processes.push(api);
  // One run at a time (WORKER_CONCURRENCY 1), so there are jobs it has not taken when the signal comes.
  const first = await spawnWorkerProcess({ redisPrefix, threads: 1, concurrency: 1 });
  processes.push(first);
  const account = await buildAccount(pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(pool, account.id);

  await queue.pause();
  // The worker's active job: a streamed run whose body is not read until the signal is in, so the job is
  // surely still active then (it waits on its client), whatever the machine's pace.
  const held = fetch(`${api.url}/v1/simulations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
    body: JSON.stringify({ preset: 'healthcare', num_interactions: 1_000_000, seed: 10 }),
  });
  // Its answer is awaited only later; until then a refusal or a failure is kept to explain a wait that ends.
  let heldOutcome = 'no answer yet';
  held.then((response) => (heldOutcome = `answered ${response.status}`), (error: unknown) => (heldOutcome = `failed: ${String(error)}`));
  await eventually(async () => ((await queuedJobs(queue)) === 1 ? true : undefined), 60_000).catch(async (error: unknown) => {
    throw new Error(`${String(error)}; the held request: ${heldOutcome}; jobs: ${JSON.stringify(await queue.getJobCounts())}\n${api.output().slice(-3000)}`);
  });
  const seeds = [11, 12, 13, 14, 15, 16, 17, 18];
  const inFlight = Promise.all(seeds.map((seed) => simulate(api.url, key, { preset: 'healthcare', num_interactions: 1000, seed })));
  await eventually(async () => ((await queuedJobs(queue)) === seeds.length + 1 ? true : undefined), 60_000);
  await queue.resume();
  const heldResponse = await held;
  t.is(heldResponse.status, 200);
  first.child.kill('SIGTERM');
  await eventually(() => (first.output().includes('"msg":"worker stopping; finishing active jobs"') ? true : undefined), 60_000);
  // Now the held body is read to its end: the active job finishes, and the worker exits.
  let lines = 0;
  for await (const piece of heldResponse.body ?? []) {
    lines += Buffer.from(piece as Uint8Array).reduce((count, byte) => count + (byte === 10 ? 1 : 0), 0);
  }
  t.is(lines, 1_000_000);
  t.is(await first.exited, 0, first.output());
  t.true(first.output().includes('"msg":"worker stopped"'));
  t.is(await queuedJobs(queue), seeds.length, 'the stopped worker took no job after the signal');

  const second = await spawnWorkerProcess({ redisPrefix, threads: 2 });
  processes.push(second);
  const responses = await inFlight;
  for (const [index, response] of responses.entries()) {
    t.is(response.status, 200, response.text.slice(0, 300));
    t.is((JSON.parse(response.text) as { seed: number }).seed, seeds[index] as number);
  }
  // The rows are written after the answers (api/runs/createRun.ts), by a process still running.
  const statuses = await eventually(async () => {
    const current = await ledgerStatuses(account.id);
    return current.length > seeds.length ? current : undefined;
  }, 60_000, 20);
  t.deepEqual(statuses, [...seeds, 10].map(() => 'completed'));
});

test.serial('on SIGTERM a connection the process accepted before its listener closed is served its request (with Connection: close), not reset unread', async (t) => {
  // Headers timeouts far above this test's pace: the connection sends its request only once the listener is closed.
  const { redisPrefix } = ownQueue();
  const api = await spawnApiProcess({ databaseUrl: database.url, redisPrefix, env: { SHUTDOWN_DELAY_MS: '0', HTTP_HEADERS_TIMEOUT_MS: '100000', HTTP_REQUEST_TIMEOUT_MS: '100000' } });
  processes.push(api);
  const early = await acceptedConnection(api.url);

  api.child.kill('SIGTERM');
  await listenerClosed(api.url);
  t.is(api.child.exitCode, null, 'the process waits for the connection it accepted');
  early.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
  const answer = await early.ended;
  t.regex(answer, /^HTTP\/1\.1 200 /);
  t.regex(answer, /\r\nconnection: close\r\n/i);
  t.is(await api.exited, 0, api.output());
});

test.serial('on SIGTERM a connection that never sends a request holds the drain only until the headers timeout: it is answered 408 and the process exits 0', async (t) => {
  const { redisPrefix } = ownQueue();
  const api = await spawnApiProcess({ databaseUrl: database.url, redisPrefix, env: { SHUTDOWN_DELAY_MS: '0', HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '1000' } });
  processes.push(api);
  const silent = await acceptedConnection(api.url);

  api.child.kill('SIGTERM');
  const answer = await silent.ended;
  t.regex(answer, /^HTTP\/1\.1 408 /);
  t.true(answer.includes('"code":"request_timeout"'), answer);
  // 0 is a drain that ended: the backstop (SIMULATION_TIMEOUT_MS + 10 s) would exit 1.
  t.is(await api.exited, 0, api.output());
});
