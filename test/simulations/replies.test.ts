import test from 'ava';
import { Queue } from 'bullmq';
import { sql } from 'slonik';
import { z } from 'zod';
import { runSimulation } from '../../api/simulations/runSimulation.ts';
import { ENGINE_VERSION, resolvePreset } from '../../shared/engine/index.ts';
import { AppError } from '../../shared/errors/AppError.ts';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildAdmission } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { connectTestRedis, monitorTestRedis, TEST_REDIS } from '../helpers/testRedis.ts';
import { queuePrefix } from '../../shared/redis/queuePrefix.ts';
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

test.serial('each API process gets the results of its own simulations only, and no result byte crosses Redis', async (t) => {
  // MONITOR shows every command any process sends; none under this test's prefix may carry a record.
  const carried: string[] = [];
  const markerKey = `${first.redisPrefix}:monitor-marker`;
  let markerSeen = false;
  const stopMonitoring = await monitorTestRedis((args) => {
    if (args[1] === markerKey) {
      markerSeen = true;
    }
    if (args.some((arg) => arg.includes(first.redisPrefix)) && args.some((arg) => arg.includes('"interaction_id"') || arg.includes('sequence_id'))) {
      carried.push(args[0] ?? '');
    }
  });
  t.teardown(stopMonitoring);

  const ask = (app: TestApp, seed: number, accept?: string) =>
    postSimulation(app, { preset: 'finance', num_interactions: seed % 2 === 0 ? 20 : 20_000, seed }, { key, ...(accept === undefined ? {} : { headers: { Accept: accept } }) });
  const responses = await Promise.all([
    ...Array.from({ length: 10 }, (_, seed) => ask(first, seed)),
    ...Array.from({ length: 10 }, (_, seed) => ask(second, seed + 100)),
  ]);
  t.deepEqual(responses.map((response) => response.status), Array.from({ length: 20 }, () => 200));
  // Every answer carries the seed its own request asked for and its records: no result crossed over.
  t.deepEqual(responses.map((response) => response.body.seed), [...Array.from({ length: 10 }, (_, s) => s), ...Array.from({ length: 10 }, (_, s) => s + 100)]);
  t.deepEqual(responses.map((response) => response.body.data.length), responses.map((response) => (response.body.seed % 2 === 0 ? 20 : 20_000)));
  // A marker command after the runs: once MONITOR shows it, it has shown everything before it.
  const marker = connectTestRedis();
  t.teardown(() => marker.disconnect());
  await marker.set(markerKey, '1');
  await eventually(() => (markerSeen ? true : undefined), 10_000, 20);
  t.deepEqual(carried, []);
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
  const apiKey = await buildApiKey(first.services.pool, account.id);
  const admission = buildAdmission(account.id, 5);
  const principal = { accountId: account.id, plan: 'enterprise', limits: admission.plan, via: { kind: 'api_key', apiKeyId: apiKey.id } } as const;
  const finance = resolvePreset('finance');
  if (finance === undefined) {
    t.fail('finance preset missing');
    return;
  }
  // A profile the route's validation would have refused: only the engine's own guard stops it, in the thread.
  const error = await t.throwsAsync(runSimulation(first.services, principal, { preset: finance, profile: 'reckless', seed: 1, numInteractions: 5, serviceVersion: ENGINE_VERSION }, admission), {
    instanceOf: AppError,
  });
  t.is(error.status, 500);
  t.is(error.code, 'internal_error');
  // Reported by the worker, not waited out: the deadline (30 s) would have made it a timed_out row.
  const rows = await first.services.pool.any(sql.type(z.object({ status: z.string(), started_at: z.string().nullable() }))`
    SELECT status, started_at FROM simulations WHERE account_id = ${account.id}
  `);
  t.is(rows.length, 1);
  t.is(rows[0]?.status, 'failed');
  t.truthy(rows[0]?.started_at);
});
