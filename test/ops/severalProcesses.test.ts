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
import { sampleValue, scrape } from './scrape.ts';
import { type PlainResponse, requestOnNewConnection, simulate, spawnApiProcess } from './spawnApiProcess.ts';

// Two API processes and two worker processes on loopback, sharing one database and one Redis prefix.
let database: TestDatabase;
let pool: DatabasePool;
let redisPrefix: string;
let redis: Redis;
let queue: Queue;
let apis: [ServiceProcess, ServiceProcess];
const workers: WorkerProcess[] = [];

test.before(async () => {
  database = await createTestDatabase();
  pool = await createDatabasePool(database.url);
  redisPrefix = createRedisPrefix();
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  queue = new Queue(SIMULATION_QUEUE, { connection: redis, prefix: redisPrefix });
  apis = await Promise.all([0, 1].map(() => spawnApiProcess({ databaseUrl: database.url, redisPrefix }))) as [ServiceProcess, ServiceProcess];
  workers.push(...(await Promise.all([0, 1].map(() => spawnWorkerProcess({ redisPrefix, threads: 1 })))));
});

test.after.always(async () => {
  await Promise.all([...(apis ?? []), ...workers].map((child) => child.stop(5000)));
  await queue?.close();
  redis?.disconnect();
  await pool?.end();
  await database?.drop();
  if (redisPrefix !== undefined) {
    await deleteRedisPrefix(redisPrefix);
  }
});

const json = (response: PlainResponse): any => JSON.parse(response.text);

const ledger = async (accountId: string) =>
  pool.any(sql.type(z.object({ id: z.string(), seed: z.number(), status: z.string() }))`
    SELECT id, seed::int AS seed, status FROM simulations WHERE account_id = ${accountId}
  `);

/**
 * The ledger once it holds `count` rows: each API process writes a run's row after its answer
 * (api/runs/createRun.ts), so a test in another process waits for it.
 */
const ledgerOf = (accountId: string, count: number) =>
  eventually(async () => {
    const rows = await ledger(accountId);
    return rows.length >= count ? rows : undefined;
  }, 15_000, 20);

test.serial('every result reaches the API process that waits for it, whichever worker ran it', async (t) => {
  const account = await buildAccount(pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(pool, account.id);
  const seeds = Array.from({ length: 16 }, (_, index) => 1000 + index);
  const responses = await Promise.all(seeds.map((seed, index) => simulate(apis[index % 2]!.url, key, { preset: 'education', num_interactions: 300, seed })));
  const rows = new Map((await ledgerOf(account.id, seeds.length)).map((row) => [row.id, row]));
  for (const [index, response] of responses.entries()) {
    t.is(response.status, 200, response.text.slice(0, 200));
    const body = json(response);
    t.is(body.seed, seeds[index]);
    t.is(body.data.length, 300);
    // The answer is this request's own run: its id is the ledger row written for this seed, completed.
    t.like(rows.get(body.simulation_id), { seed: seeds[index], status: 'completed' });
  }
  t.is(new Set(responses.map((response) => json(response).simulation_id)).size, seeds.length);
  // Each API process counted exactly the runs it answered.
  for (const api of apis) {
    t.is(sampleValue(await scrape(api.url), 'bss_simulations_total', { preset: 'education', outcome: 'completed' }), 8);
  }
});

test.serial('a key revoked through one API process fails on the other at once', async (t) => {
  const account = await buildAccount(pool, { plan: 'pro' });
  const { key } = await buildApiKey(pool, account.id);
  const [first, second] = apis;
  const created = await requestOnNewConnection(`${first.url}/v1/api-keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'to revoke' }),
  });
  t.is(created.status, 201);
  const { id, key: newKey } = json(created) as { id: string; key: string };
  const account_ = (): Promise<PlainResponse> => requestOnNewConnection(`${second.url}/v1/account`, { headers: { Authorization: `Bearer ${newKey}` } });
  t.is((await account_()).status, 200);
  t.is((await account_()).status, 200);

  const revoked = await requestOnNewConnection(`${first.url}/v1/api-keys/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
  t.is(revoked.status, 200);
  const refused = await account_();
  t.is(refused.status, 401);
  t.is(json(refused).error.details.code, 'invalid_credentials');
  const simulation = await simulate(second.url, newKey, { preset: 'finance', num_interactions: 5 });
  t.is(simulation.status, 401);
});

test.serial('limits are exact across processes: 12 simultaneous requests of a free account split over both APIs admit one run, refuse 4 for concurrency and 7 for rate', async (t) => {
  const account = await buildAccount(pool, { plan: 'free' });
  const { key } = await buildApiKey(pool, account.id);
  // Paused, the queue holds the admitted run, so its concurrency slot stays taken while the rest arrive.
  await queue.pause();
  let resumed = false;
  t.teardown(async () => {
    if (!resumed) {
      await queue.resume();
    }
  });
  const pending = Array.from({ length: 12 }, (_, index) => simulate(apis[index % 2]!.url, key, { preset: 'finance', num_interactions: 10, seed: index }));
  const settled: PlainResponse[] = [];
  for (const request of pending) {
    void request.then((response) => settled.push(response));
  }
  const refusals = await eventually(() => (settled.length === 11 ? settled : undefined), 15_000, 20);
  const codes = refusals.map((response) => `${response.status} ${json(response).error?.details?.code}`).sort();
  t.deepEqual(codes, [...Array(4).fill('429 concurrency_limit_exceeded'), ...Array(7).fill('429 rate_limit_exceeded')]);
  await queue.resume();
  resumed = true;
  const all = await Promise.all(pending);
  t.is(all.filter((response) => response.status === 200).length, 1);
  t.deepEqual((await ledgerOf(account.id, 1)).map((row) => row.status), ['completed']);
});

test.serial('restarting one worker mid-load loses no job', async (t) => {
  const account = await buildAccount(pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(pool, account.id);
  const seeds = Array.from({ length: 16 }, (_, index) => 2000 + index);
  const inFlight = Promise.all(seeds.map((seed, index) => simulate(apis[index % 2]!.url, key, { preset: 'healthcare', num_interactions: 20_000, seed })));
  await eventually(async () => ((await queue.getActiveCount()) > 0 ? true : undefined), 10_000, 2);
  const restarted = workers.shift() as WorkerProcess;
  t.is(await restarted.stop(), 0, restarted.output());
  workers.push(await spawnWorkerProcess({ redisPrefix, threads: 1 }));

  const responses = await inFlight;
  for (const [index, response] of responses.entries()) {
    t.is(response.status, 200, response.text.slice(0, 200));
    t.is(json(response).seed, seeds[index]);
  }
  const rows = await ledgerOf(account.id, seeds.length);
  t.is(rows.length, seeds.length);
  t.true(rows.every((row) => row.status === 'completed'));
});

test.serial('a worker killed mid-job (SIGKILL) loses no job: another worker retakes it within the deadline, or its answer is cut and the run settled failed', async (t) => {
  const account = await buildAccount(pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(pool, account.id);
  const seeds = Array.from({ length: 8 }, (_, index) => 3000 + index);
  const inFlight = Promise.allSettled(seeds.map((seed, index) => simulate(apis[index % 2]!.url, key, { preset: 'finance', num_interactions: 40_000, seed })));
  await eventually(async () => ((await queue.getActiveCount()) > 1 ? true : undefined), 10_000, 2);
  const killed = workers.shift() as WorkerProcess;
  killed.child.kill('SIGKILL');
  await killed.exited;
  workers.push(await spawnWorkerProcess({ redisPrefix, threads: 1 }));

  // A run whose first bytes had left before the kill cannot be answered whole by another worker: its
  // answer is cut (docs/formats.md#large-runs-are-streamed: never a body that looks whole) and the run is
  // settled failed. Every other run is retaken and answered 200. Which runs had sent bytes depends on the
  // machine's pace.
  const outcomes = await inFlight;
  const answered = new Map<number, string>();
  for (const [index, outcome] of outcomes.entries()) {
    if (outcome.status === 'fulfilled') {
      t.is(outcome.value.status, 200, outcome.value.text.slice(0, 200));
      t.is(json(outcome.value).seed, seeds[index]);
      answered.set(seeds[index]!, json(outcome.value).simulation_id);
    }
  }
  t.true(answered.size >= seeds.length - 1, 'one worker thread ran one job when it was killed');
  // No job lost: every run is settled, completed exactly when it was answered whole.
  const rows = await eventually(async () => {
    const current = await ledger(account.id);
    return current.length === seeds.length && current.every((row) => row.status !== 'queued') ? current : undefined;
  }, 15_000, 20);
  for (const row of rows) {
    t.is(row.status, answered.get(row.seed) === row.id ? 'completed' : 'failed', `seed ${row.seed}`);
  }
});
