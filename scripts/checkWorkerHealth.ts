import os from 'node:os';
import { loadConfig } from '../shared/config.ts';
import { WORKER_POOL_STALE_MS, workerPoolsKey, workerPoolSnapshotSchema } from '../shared/metrics/workerPools.ts';
import { connectRedisOnce } from '../shared/redis/connectRedisOnce.ts';
import type { RedisClient } from '../shared/redis/createRedis.ts';
import { describeRedisTarget } from '../shared/redis/RedisTarget.ts';

// The worker's health check (`node scripts/checkWorkerHealth.ts`, the compose file's worker healthcheck).
// A worker has no HTTP server: its heartbeat is the pool gauges it writes to Redis every 5 s under
// `<host>:<pid>` (worker/startPoolMetricsPublisher.ts). Healthy when a worker of this host (this container)
// wrote one within WORKER_POOL_STALE_MS: it runs, reaches Redis, and its event loop is not stuck.
// Exit 0 when healthy; otherwise one line on stderr and exit 1.
const config = loadConfig();
const host = `${os.hostname()}:`;

const newestHeartbeatAge = async (redis: RedisClient): Promise<number | undefined> => {
  const entries = await redis.hgetall(workerPoolsKey(config.redisPrefix));
  const ages = Object.entries(entries)
    .filter(([worker]) => worker.startsWith(host))
    .map(([, value]) => workerPoolSnapshotSchema.safeParse(JSON.parse(value)))
    .filter((parsed) => parsed.success)
    .map((parsed) => Date.now() - parsed.data.at);
  return ages.length === 0 ? undefined : Math.min(...ages);
};

const check = async (): Promise<string | undefined> => {
  let redis: RedisClient;
  try {
    redis = await connectRedisOnce(config.redis, 'bss:healthcheck');
  } catch {
    return `unhealthy: Redis is not reachable at ${describeRedisTarget(config.redis)}`;
  }
  try {
    const age = await newestHeartbeatAge(redis);
    if (age === undefined) {
      return `unhealthy: no worker on ${os.hostname()} has written its heartbeat under prefix ${config.redisPrefix}`;
    }
    return age > WORKER_POOL_STALE_MS ? `unhealthy: the last heartbeat of a worker on ${os.hostname()} is ${Math.round(age / 1000)} s old` : undefined;
  } finally {
    redis.disconnect();
  }
};

const problem = await check();
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
}
process.exitCode = problem === undefined ? 0 : 1;
