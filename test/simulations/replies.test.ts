import test from 'ava';
import { Queue } from 'bullmq';
import { sql } from 'slonik';
import { z } from 'zod';
import { ENGINE_VERSION } from '../../shared/engine/index.ts';
import { AppError } from '../../shared/errors/AppError.ts';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildAdmission } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { connectTestRedis, TEST_REDIS } from '../helpers/testRedis.ts';
import { startRedisServer } from '../helpers/startRedisServer.ts';
import { queuePrefix } from '../../shared/redis/queuePrefix.ts';
import { postSimulation } from './postSimulation.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

// Two API processes (two apps on one database and one queue prefix) and one worker.
let first: TestApp;
let second: TestApp;
let worker: SimulationWorker;
let key: string;

test.before(async () => {
  first = await startTestApp();
  second = await startTestApp({ database: first.database, redisPrefix: first.redisPrefix });
  worker = await startTestWorker({ redisPrefix: first.redisPrefix, threads: 2 });
  const account = await buildAccount(first.services.pool, { plan: 'enterprise' });
  ({ key } = await buildApiKey(first.services.pool, account.id));
});

test.after.always(async () => {
  await worker?.close();
  await second?.close();
  await first?.close();
});

test.serial('each API process gets the results of its own simulations only, and no result byte crosses Redis', async (t) => {
  // A redis-server of the test's own: its byte counters are this test's traffic alone.
  const redis = await startRedisServer();
  t.teardown(() => redis.stop());
  const one = await startTestApp({ env: { REDIS_URL: redis.url } });
  t.teardown(() => one.close());
  const two = await startTestApp({ env: { REDIS_URL: redis.url }, database: one.database, redisPrefix: one.redisPrefix });
  t.teardown(() => two.close());
  const own = await startTestWorker({ redisPrefix: one.redisPrefix, redisUrl: redis.url, threads: 2 });
  t.teardown(() => own.close());
  const account = await buildAccount(one.services.pool, { plan: 'enterprise' });
  const { key: ownKey } = await buildApiKey(one.services.pool, account.id);
  const traffic = async (): Promise<{ input: number; output: number }> => {
    const stats = await redis.admin.info('stats');
    const read = (name: string): number => Number(new RegExp(`${name}:(\\d+)`).exec(stats)?.[1]);
    return { input: read('total_net_input_bytes'), output: read('total_net_output_bytes') };
  };

  const before = await traffic();
  const ask = (app: TestApp, seed: number) => postSimulation(app, { preset: 'finance', num_interactions: seed % 2 === 0 ? 20 : 20_000, seed }, { key: ownKey });
  const responses = await Promise.all([
    ...Array.from({ length: 10 }, (_, seed) => ask(one, seed)),
    ...Array.from({ length: 10 }, (_, seed) => ask(two, seed + 100)),
  ]);
  const after = await traffic();
  t.deepEqual(responses.map((response) => response.status), Array.from({ length: 20 }, () => 200));
  // Every answer carries the seed its own request asked for and its records: no result crossed over.
  t.deepEqual(responses.map((response) => response.body.seed), [...Array.from({ length: 10 }, (_, s) => s), ...Array.from({ length: 10 }, (_, s) => s + 100)]);
  t.deepEqual(responses.map((response) => response.body.data.length), responses.map((response) => (response.body.seed % 2 === 0 ? 20 : 20_000)));
  // About 26 MB of results went out; Redis saw the control traffic only (jobs, locks, limits), a few
  // kilobytes a run, in either direction.
  const resultBytes = responses.reduce((sum, response) => sum + response.bytes.length, 0);
  t.true(resultBytes > 20_000_000, `${resultBytes} result bytes`);
  t.true(after.input - before.input < resultBytes / 50, `Redis read ${after.input - before.input} bytes`);
  t.true(after.output - before.output < resultBytes / 50, `Redis wrote ${after.output - before.output} bytes`);
});

test('a job whose data does not parse is failed without a retry and the worker goes on serving', async (t) => {
  const producer = connectTestRedis({ blocking: true });
  const queue = new Queue(SIMULATION_QUEUE, { connection: producer, prefix: queuePrefix(first.redisPrefix, TEST_REDIS) });
  t.teardown(async () => {
    await queue.close();
    producer.disconnect();
  });
  const job = await queue.add('simulate', { preset: 'finance', numInteractions: 'many', apiKey: 'bs_live_secret' }, { jobId: 'not-a-simulation' });

  const state = await eventually(async () => {
    const current = await job.getState();
    return current === 'failed' ? current : undefined;
  }, 10_000, 20);
  t.is(state, 'failed');
  const failed = await queue.getJob('not-a-simulation');
  t.is(failed?.failedReason, 'invalid job data');
  t.is(failed?.attemptsMade, 1);

  const response = await postSimulation(first, { preset: 'education', num_interactions: 5, seed: 1 }, { key });
  t.is(response.status, 200);
});

test('a run the engine refuses is reported at once as failed, not left to the deadline; the ledger row says failed', async (t) => {
  const account = await buildAccount(first.services.pool, { plan: 'enterprise' });
  // A profile the route's validation would have refused: only the engine's own guard stops it, in the thread.
  const { run } = await buildAdmission(first.services, account.id, 5, { preset: 'finance', profile: 'reckless', seed: 1, serviceVersion: ENGINE_VERSION });
  const error = await t.throwsAsync(run.execute(), { instanceOf: AppError });
  t.is(error.status, 500);
  t.is(error.code, 'internal_error');
  // Reported by the worker, not waited out: the deadline (30 s) would have made it a timed_out row.
  await ledgerWritten(first.services);
  const rows = await first.services.pool.any(sql.type(z.object({ status: z.string(), started_at: z.string().nullable() }))`
    SELECT status, started_at FROM simulations WHERE account_id = ${account.id}
  `);
  t.is(rows.length, 1);
  t.is(rows[0]?.status, 'failed');
  t.truthy(rows[0]?.started_at);
});
