import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import { queuePrefix } from '../../shared/redis/queuePrefix.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { type RedisCluster, startRedisCluster } from '../helpers/startRedisCluster.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { postSimulation, type SimulationResponse } from '../simulations/postSimulation.ts';
import { shardOfKey } from './shardOfKey.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

// A cluster of the file's own, with a replica per master: the test promotes one.
let cluster: RedisCluster;
let app: TestApp;
let worker: SimulationWorker;

test.before(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  app = await startTestApp({ env: { REDIS_CLUSTER_NODES: cluster.seeds } });
  worker = await startTestWorker({ redisPrefix: app.redisPrefix, redis: cluster.target, threads: 2 });
});

test.after.always(async () => {
  await worker?.close();
  await app?.close();
  await cluster?.stop();
});

/** Concurrent clients, each posting one run after another. */
const CLIENTS = 16;

test('a replica promoted under load (CLUSTER FAILOVER of the queue\'s master) loses no run, and usage counts every 200 once and no error', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  // The queue's slot: every BullMQ key of the service carries its hash tag.
  // A node learns of its shard's replica by gossip, which a busy machine can delay past the cluster's start.
  const { master, replica } = await eventually(async () => {
    const shard = await shardOfKey(cluster, `${queuePrefix(app.redisPrefix, { kind: 'cluster' })}:${SIMULATION_QUEUE}:id`);
    const [first] = shard.replicas;
    return first === undefined ? undefined : { master: shard.master, replica: first };
  }, 20_000, 50);

  // Clients post one run after another, before, during and after the promotion: it starts once 10 runs
  // were answered, and the load goes on until 20 more were answered after the replica became master.
  const all: SimulationResponse[] = [];
  let promotedAt: number | undefined;
  let stop = false;
  let startFailover: () => void = () => {};
  const failoverWanted = new Promise<void>((resolve) => {
    startFailover = resolve;
  });
  const client = async (first: number): Promise<void> => {
    for (let seed = first; !stop && (promotedAt === undefined || all.length < promotedAt + 20); seed += CLIENTS) {
      all.push(await postSimulation(app, { preset: 'finance', num_interactions: 20, seed }, { key: caller.key }));
      if (all.length >= 10) startFailover();
    }
  };
  const load = Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
  try {
    await failoverWanted;
    t.is(await replica.admin.cluster('FAILOVER'), 'OK');
    // The failover completed: the old replica now serves the queue's slot.
    await eventually(async () => ((await replica.admin.role())[0] === 'master' ? true : undefined), 20_000, 20);
    promotedAt = all.length;
  } finally {
    stop = promotedAt === undefined;
    await load;
  }
  t.is((await master.admin.role())[0], 'slave');
  t.true(all.length >= promotedAt + 20);

  const ok = all.filter((response) => response.status === 200);
  const refused = all.filter((response) => response.status !== 200);
  t.log(`${ok.length} answered 200, ${refused.length} refused (${[...new Set(refused.map((response) => response.status))].join(', ') || 'none'})`);
  // A refusal during the promotion is a 503 (try again), never a hang to the deadline or a 500.
  t.true(refused.every((response) => response.status === 503 && response.body.error.details.code === 'service_unavailable'), JSON.stringify(refused.map((response) => response.text)));
  t.true(ok.length > 0);

  // Every 200 is a completed run in the ledger, counted once; nothing else is counted.
  await ledgerWritten(app.services);
  const ledger = await app.services.pool.any(sql.type(z.object({ id: z.string(), status: z.string() }))`
    SELECT id, status FROM simulations WHERE account_id = ${caller.accountId}
  `);
  const completed = ledger.filter((row) => row.status === 'completed').map((row) => row.id);
  t.deepEqual(ok.map((response) => response.body.simulation_id as string).sort(), completed.sort());
  const usage = await eventually(async () => {
    const body = (await (await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${caller.key}` } })).json()) as { usage: { requests: number; interactions: number } };
    return body.usage.requests === ok.length ? body.usage : undefined;
  }, 10_000, 50);
  t.deepEqual(usage, { requests: ok.length, interactions: ok.length * 20 });

  // The service is back: new runs complete on the promoted replica.
  const after = await eventually(async () => {
    const response = await postSimulation(app, { preset: 'finance', num_interactions: 20, seed: 1000 }, { key: caller.key });
    return response.status === 200 ? response : undefined;
  }, 20_000, 100);
  t.is(after.body.data.length, 20);
});
