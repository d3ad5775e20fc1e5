import type { RedisClient } from './createRedis.ts';

/**
 * Resolves when Redis serves, rejects otherwise. One Redis: PING. A cluster: a node answering PING says
 * little (a cluster missing a shard refuses every key yet still answers it), so the state the cluster
 * itself reports must be `ok`: every slot served.
 */
export const pingRedis = async (redis: RedisClient): Promise<void> => {
  if (!redis.isCluster) {
    await redis.ping();
    return;
  }
  const info = await redis.cluster('INFO');
  if (!/^cluster_state:ok\r?$/m.test(info)) {
    throw new Error('the Redis Cluster reports a failed state');
  }
};
