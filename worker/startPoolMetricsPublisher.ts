import type { RedisClient } from '../shared/redis/createRedis.ts';
import { describeError } from '../shared/errors/describeError.ts';
import type { Logger } from '../shared/logger.ts';
import { WORKER_POOL_PUBLISH_INTERVAL_MS, type WorkerPoolSnapshot, workerPoolsKey } from '../shared/metrics/workerPools.ts';
import type { SimulationPool } from './pool.ts';

export interface PoolMetricsPublisher {
  /** Stops publishing and removes this worker's entry, so it stops being reported at once. */
  readonly stop: () => Promise<void>;
}

/** Busy threads: those not idle, a thread still starting (after an aborted run) included. */
const snapshotPool = (pool: SimulationPool, now = Date.now()): WorkerPoolSnapshot => {
  const threads = pool.threads.length;
  return { threads, busy: Math.max(0, threads - pool.idleThreads), queued: pool.queueSize, at: now };
};

/**
 * A worker process has no HTTP server to scrape: it writes its pool gauges to its field of one Redis hash
 * every few seconds, and every API process reports them on /metrics (api/metrics/readWorkerPools.ts).
 */
export const startPoolMetricsPublisher = (options: {
  readonly redis: RedisClient;
  readonly prefix: string;
  readonly workerName: string;
  readonly pool: SimulationPool;
  readonly logger: Logger;
  readonly intervalMs?: number;
}): PoolMetricsPublisher => {
  const { redis, workerName, pool, logger } = options;
  const key = workerPoolsKey(options.prefix);
  const publish = (): void => {
    redis.hset(key, workerName, JSON.stringify(snapshotPool(pool))).catch((error: unknown) => {
      logger.debug({ error: describeError(error) }, 'could not publish pool gauges');
    });
  };
  // The connection fails fast: a write before it is up is dropped, so publish again once it is (and after
  // every reconnect) rather than wait a whole interval.
  redis.on('ready', publish);
  publish();
  const timer = setInterval(publish, options.intervalMs ?? WORKER_POOL_PUBLISH_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      redis.off('ready', publish);
      await redis.hdel(key, workerName).catch(() => {});
    },
  };
};
