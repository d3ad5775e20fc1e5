import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import type { RedisClient } from '../../shared/redis/createRedis.ts';
import type { RedisTarget } from '../../shared/redis/RedisTarget.ts';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Set by `npm run test:cluster` (test/helpers/runOnRedisCluster.ts): the seeds of a local Redis Cluster,
 * which every app, worker and test connection of the run then uses instead of the one Redis.
 */
const clusterSeeds = process.env.TEST_REDIS_CLUSTER_NODES;

/** The Redis this test run targets. */
export const TEST_REDIS: RedisTarget =
  clusterSeeds === undefined
    ? { kind: 'single', url: TEST_REDIS_URL }
    : {
        kind: 'cluster',
        nodes: clusterSeeds.split(',').map((seed) => {
          const [host = '127.0.0.1', port = '0'] = seed.split(':');
          return { host, port: Number(port) };
        }),
      };

/** The environment an app or worker process needs to reach the test run's Redis. */
export const testRedisEnv = (): Record<string, string> =>
  clusterSeeds === undefined ? { REDIS_URL: TEST_REDIS_URL } : { REDIS_CLUSTER_NODES: clusterSeeds };

/** A connection of the test's own to the test run's Redis; the caller disconnects it. */
export const connectTestRedis = (options: { readonly blocking?: boolean } = {}): RedisClient => {
  const redisOptions = options.blocking === true ? { maxRetriesPerRequest: null } : {};
  const redis = TEST_REDIS.kind === 'cluster' ? new Cluster([...TEST_REDIS.nodes], { redisOptions }) : new Redis(TEST_REDIS.url, redisOptions);
  redis.on('error', () => {});
  return redis;
};

/** A key prefix of its own per test file: files share one Redis server and never flush it. */
export const createRedisPrefix = (): string => `test:${randomBytes(6).toString('hex')}`;

/**
 * Deletes every key under a prefix without FLUSHALL: the service's own keys and BullMQ's, whose prefix is
 * the hash tag `{prefix}` on a cluster (shared/redis/queuePrefix.ts). On a cluster, every master is scanned.
 */
export const deleteRedisPrefix = async (prefix: string, target: RedisTarget = TEST_REDIS): Promise<void> => {
  // Connecting inside the try: a connect that fails has still started a client that retries on its own
  // (ioredis reconnects after a failed first connect), and only disconnect() stops it. Left running, it
  // connected a moment later and kept the test process alive after its last hook.
  if (target.kind === 'single') {
    const redis = new Redis(target.url, { lazyConnect: true });
    redis.on('error', () => {});
    try {
      await redis.connect();
      await deleteMatching(redis, prefix, false);
    } finally {
      redis.disconnect();
    }
    return;
  }
  // On a loaded machine CLUSTER SLOTS can take longer than ioredis' 1 s default, which fails the connect.
  const cluster = new Cluster([...target.nodes], { lazyConnect: true, slotsRefreshTimeout: 10_000 });
  cluster.on('error', () => {});
  try {
    await cluster.connect();
    await Promise.all(cluster.nodes('master').map((node) => deleteMatching(node, prefix, true)));
  } finally {
    cluster.disconnect();
  }
};

const deleteMatching = async (node: Redis, prefix: string, oneKeyPerCommand: boolean): Promise<void> => {
  for (const pattern of [`${prefix}*`, `{${prefix}}*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length === 0) {
        continue;
      }
      if (oneKeyPerCommand) {
        // A cluster node refuses one UNLINK of keys in different slots (CROSSSLOT).
        const pipeline = node.pipeline();
        for (const key of keys) {
          pipeline.unlink(key);
        }
        await pipeline.exec();
      } else {
        await node.unlink(...keys);
      }
    } while (cursor !== '0');
  }
};

