import type { RedisClient } from './createRedis.ts';
import { pingRedis } from './pingRedis.ts';

/** How often a cluster's own state is read. Milliseconds. */
const CLUSTER_CHECK_INTERVAL_MS = 1000;

export interface RedisHealth {
  /** Whether Redis is out of service right now: an error it caused is then the client's 503, not a 500. */
  readonly isDown: () => boolean;
  readonly stop: () => void;
}

/**
 * One Redis is down when its connection is. A cluster's client stays connected while a shard is lost (its
 * commands fail, after ioredis' redirections, with errors of no particular class): there, the state the
 * cluster reports is read every second as well.
 */
export const watchRedisHealth = (redis: RedisClient): RedisHealth => {
  if (!redis.isCluster) {
    return { isDown: () => redis.status !== 'ready', stop: () => {} };
  }
  let serving = true;
  const check = (): void => {
    pingRedis(redis).then(
      () => {
        serving = true;
      },
      () => {
        serving = false;
      },
    );
  };
  const timer = setInterval(check, CLUSTER_CHECK_INTERVAL_MS);
  timer.unref();
  return { isDown: () => redis.status !== 'ready' || !serving, stop: () => clearInterval(timer) };
};
