import test from 'ava';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { sql } from 'slonik';
import { z } from 'zod';
import { runSimulation } from '../../api/simulations/runSimulation.ts';
import { resolvePreset } from '../../shared/engine/index.ts';
import { AppError } from '../../shared/errors/AppError.ts';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildAdmission } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { TEST_REDIS_URL } from '../helpers/testRedis.ts';
import { postSimulation } from './postSimulation.ts';

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

test.serial('each API process is notified of its own simulations only, on its own reply channel', async (t) => {
  const spy = new Redis(TEST_REDIS_URL);
  t.teardown(() => spy.disconnect());
  const noticesByChannel = new Map<string, Set<string>>();
  spy.on('pmessage', (_pattern: string, channel: string, message: string) => {
    const id = (JSON.parse(message) as { simulationId: string }).simulationId;
    noticesByChannel.set(channel, (noticesByChannel.get(channel) ?? new Set()).add(id));
  });
  await spy.psubscribe(`${first.redisPrefix}:simulation-replies:*`);

  const ask = (app: TestApp, seed: number) => postSimulation(app, { preset: 'finance', num_interactions: 20, seed }, { key });
  const responses = await Promise.all([
    ...Array.from({ length: 10 }, (_, seed) => ask(first, seed)),
    ...Array.from({ length: 10 }, (_, seed) => ask(second, seed + 100)),
  ]);
  t.true(responses.every((response) => response.status === 200));
  const idsOf = (from: number, to: number) => new Set(responses.slice(from, to).map((response) => response.body.simulation_id as string));
  const firstIds = idsOf(0, 10);
  const secondIds = idsOf(10, 20);
  // Every answer carries the seed its own request asked for, so no result crossed to the other process.
  t.deepEqual(responses.map((response) => response.body.seed), [...Array.from({ length: 10 }, (_, s) => s), ...Array.from({ length: 10 }, (_, s) => s + 100)]);

  await new Promise((resolve) => setTimeout(resolve, 100));
  t.is(noticesByChannel.size, 2);
  const channels = [...noticesByChannel.values()].map((ids) => [...ids].sort());
  t.deepEqual(channels.sort(), [[...firstIds].sort(), [...secondIds].sort()].sort());
});

test('a job whose data does not parse is failed without a retry and the worker goes on serving', async (t) => {
  const producer = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue(SIMULATION_QUEUE, { connection: producer, prefix: first.redisPrefix });
  t.teardown(async () => {
    await queue.close();
    producer.disconnect();
  });
  const job = await queue.add('simulate', { preset: 'finance', numInteractions: 'many', apiKey: 'bs_live_secret' }, { jobId: 'not-a-simulation' });

  const until = Date.now() + 5000;
  let state = await job.getState();
  while (state !== 'failed' && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    state = await job.getState();
  }
  t.is(state, 'failed');
  const failed = await queue.getJob('not-a-simulation');
  t.is(failed?.failedReason, 'invalid job data');
  t.is(failed?.attemptsMade, 1);

  const response = await postSimulation(first, { preset: 'education', num_interactions: 5, seed: 1 }, { key });
  t.is(response.status, 200);
});

test('a run the engine refuses is reported at once as failed, not left to the deadline; the ledger row says failed', async (t) => {
  const account = await buildAccount(first.services.pool, { plan: 'enterprise' });
  const apiKey = await buildApiKey(first.services.pool, account.id);
  const admission = buildAdmission(account.id, 5);
  const principal = { accountId: account.id, plan: 'enterprise', limits: admission.plan, via: { kind: 'api_key', apiKeyId: apiKey.id } } as const;
  const finance = resolvePreset('finance');
  if (finance === undefined) {
    t.fail('finance preset missing');
    return;
  }
  const started = performance.now();
  // A profile the route's validation would have refused: only the engine's own guard stops it, in the thread.
  const error = await t.throwsAsync(runSimulation(first.services, principal, { preset: finance, profile: 'reckless', seed: 1, numInteractions: 5 }, admission), {
    instanceOf: AppError,
  });
  t.is((error as AppError).status, 500);
  t.is((error as AppError).code, 'internal_error');
  t.true(performance.now() - started < 5000, 'well before the 30 s deadline');
  const rows = await first.services.pool.any(sql.type(z.object({ status: z.string(), started_at: z.string().nullable() }))`
    SELECT status, started_at FROM simulations WHERE account_id = ${account.id}
  `);
  t.is(rows.length, 1);
  t.is(rows[0]?.status, 'failed');
  t.truthy(rows[0]?.started_at);
});
