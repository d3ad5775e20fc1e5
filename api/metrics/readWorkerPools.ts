import type { RedisClient } from '../../shared/redis/createRedis.ts';
import { WORKER_POOL_STALE_MS, type WorkerPoolSnapshot, workerPoolSnapshotSchema, workerPoolsKey } from '../../shared/metrics/workerPools.ts';

/**
 * The pool gauges every live worker process published, by worker name. Entries of workers that stopped
 * publishing (killed without cleaning up) are removed here, so they stop being reported.
 */
export const readWorkerPools = async (redis: RedisClient, prefix: string, now = Date.now()): Promise<ReadonlyMap<string, WorkerPoolSnapshot>> => {
  const key = workerPoolsKey(prefix);
  const entries = await redis.hgetall(key);
  const live = new Map<string, WorkerPoolSnapshot>();
  const stale: string[] = [];
  for (const [worker, text] of Object.entries(entries)) {
    const snapshot = parseSnapshot(text);
    if (snapshot === undefined || now - snapshot.at > WORKER_POOL_STALE_MS) {
      stale.push(worker);
    } else {
      live.set(worker, snapshot);
    }
  }
  if (stale.length > 0) {
    await redis.hdel(key, ...stale);
  }
  return live;
};

const parseSnapshot = (text: string): WorkerPoolSnapshot | undefined => {
  try {
    const parsed = workerPoolSnapshotSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};
