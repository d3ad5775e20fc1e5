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

test.serial('each API process gets the replies of its own simulations only, on its own reply stream', async (t) => {
  // MONITOR shows every entry a worker appends (inside its script) with the stream it goes to.
  const appended: { stream: string; id: string }[] = [];
  const stopMonitoring = await monitorTestRedis((args) => {
    if (args[0]?.toUpperCase() !== 'XADD' || !args[1]?.startsWith(`${first.redisPrefix}:simulation-replies:`)) {
      return;
    }
    const id = (JSON.parse(args[args.indexOf('m') + 1] ?? '{}') as { simulationId: string }).simulationId;
    appended.push({ stream: args[1], id });
  });
  t.teardown(stopMonitoring);

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

  // Every reply was appended before its request was answered; MONITOR reports them a moment later.
  // (Other tests of this file run beside this one: only this test's runs are counted.)
  const ours = (): { stream: string; id: string }[] => appended.filter(({ id }) => firstIds.has(id) || secondIds.has(id));
  await eventually(() => (ours().length >= 20 ? true : undefined), 10_000, 20);
  t.is(ours().length, 20, 'one entry per run: a small run\'s bytes travel once');
  const repliesByStream = new Map<string, Set<string>>();
  for (const { stream, id } of ours()) {
    repliesByStream.set(stream, (repliesByStream.get(stream) ?? new Set()).add(id));
  }
  t.is(repliesByStream.size, 2);
  const streams = [...repliesByStream.values()].map((ids) => [...ids].sort());
  t.deepEqual(streams.sort(), [[...firstIds].sort(), [...secondIds].sort()].sort());
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
