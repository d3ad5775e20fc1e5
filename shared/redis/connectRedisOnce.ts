import { Cluster, Redis } from 'ioredis';
import type { RedisClient } from './createRedis.ts';
import { pingRedis } from './pingRedis.ts';
import type { RedisTarget } from './RedisTarget.ts';

/**
 * For one-shot commands (preflight, the admin CLI): connects once, without retrying, and resolves with a
 * client that answers, or rejects. On a cluster it also demands `cluster_state:ok`, so a cluster missing a
 * shard is reported before anything relies on it.
 */
export const connectRedisOnce = async (target: RedisTarget, connectionName: string): Promise<RedisClient> => {
  const options = { connectionName, connectTimeout: 2000, maxRetriesPerRequest: 1 };
  const redis: RedisClient =
    target.kind === 'cluster'
      ? new Cluster([...target.nodes], { lazyConnect: true, enableOfflineQueue: false, clusterRetryStrategy: () => null, redisOptions: options })
      : new Redis(target.url, { ...options, lazyConnect: true, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await pingRedis(redis);
    return redis;
  } catch (error) {
    redis.disconnect();
    throw error;
  }
};
