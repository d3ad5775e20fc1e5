import test from 'ava';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import { queuePrefix } from '../../shared/redis/queuePrefix.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { type RedisCluster, startRedisCluster } from '../helpers/startRedisCluster.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import { shardOfKey } from './shardOfKey.ts';

// The cluster's own counterpart of the proxy-cut tests of one Redis (test/simulations/deadlines.test.ts):
// a master lost with no replica to take over leaves part of the slots unserved, and the cluster fails.
let cluster: RedisCluster;
let app: TestApp;
let worker: SimulationWorker;

test.before(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  app = await startTestApp({ env: { REDIS_CLUSTER_NODES: cluster.seeds } });
  worker = await startTestWorker({ redisPrefix: app.redisPrefix, redis: cluster.target });
});

test.after.always(async () => {
  await worker?.close();
  await app?.close();
  await cluster?.stop();
});

test('a master lost with no replica: /ready fails and a simulation is answered 503 service_unavailable, not left to its deadline, and not counted; once the master is back, runs complete again', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const before = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key: caller.key });
  t.is(before.status, 200);
  t.is((await fetch(`${app.url}/ready`)).status, 200);

  const { master } = await shardOfKey(cluster, `${queuePrefix(app.redisPrefix, { kind: 'cluster' })}:${SIMULATION_QUEUE}:id`);
  await master.kill();

  // The surviving nodes mark the cluster failed once the node timeout (2 s) has passed.
  await eventually(async () => ((await fetch(`${app.url}/ready`)).status === 503 ? true : undefined), 20_000, 100);
  // The deadline is the default 30 s: a hang would end in 504, the fail-fast connections answer 503 first.
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key: caller.key });
  t.is(response.status, 503, response.text);
  t.is(response.body.error.details.code, 'service_unavailable');
  t.is(response.headers.get('retry-after'), String(response.body.error.details.retry_after));
  const usage = (await (await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${caller.key}` } })).json()) as { usage: { requests: number } };
  t.is(usage.usage.requests, 1);

  // Back (empty: the queue's slot lost its keys with it), the node rejoins and the service recovers by itself.
  // Bounds generous for a loaded machine: the worker's blocking connection comes back on its own backoff,
  // and a run enqueued before it did waits for it (up to its 30 s deadline).
  await master.restart();
  await eventually(async () => ((await fetch(`${app.url}/ready`)).status === 200 ? true : undefined), 60_000, 100);
  const after = await eventually(async () => {
    const again = await postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 7 }, { key: caller.key });
    return again.status === 200 ? again : undefined;
  }, 60_000, 100);
  t.is(after.body.data.length, 10);
});
