import os from 'node:os';
import { Worker } from 'bullmq';
import { describeError } from '../shared/errors/describeError.ts';
import { WORKER_LOCK_DURATION_MS, WORKER_MAX_STALLED_COUNT, WORKER_STALLED_INTERVAL_MS } from '../shared/jobs/jobPolicy.ts';
import { SIMULATION_QUEUE } from '../shared/jobs/queueName.ts';
import type { Logger } from '../shared/logger.ts';
import { createRedis } from '../shared/redis/createRedis.ts';
import { queuePrefix } from '../shared/redis/queuePrefix.ts';
import type { RedisTarget } from '../shared/redis/RedisTarget.ts';
import { createSimulationPool, type SimulationPool } from './pool.ts';
import { createRunControl } from './createRunControl.ts';
import { createSimulationProcessor } from './createSimulationProcessor.ts';

export interface StartSimulationWorkerOptions {
  readonly redis: RedisTarget;
  readonly redisPrefix: string;
  /**
   * Pool threads, and BullMQ's concurrency: one job per thread. (Twice as many was tried: a stopping
   * worker then finished jobs it had fetched ahead instead of leaving them to the next worker.)
   */
  readonly threads: number;
  readonly logger: Logger;
}

export interface SimulationWorker {
  readonly worker: Worker;
  readonly pool: SimulationPool;
  /** Resolves once both Redis connections are up (tests wait on it). */
  readonly ready: () => Promise<void>;
  /** Finishes active jobs, then stops the threads, then closes Redis. */
  readonly close: () => Promise<void>;
}

/** Everything a worker process runs, without signals or exit, so tests can run it in their own process. */
export const startSimulationWorker = (options: StartSimulationWorkerOptions): SimulationWorker => {
  const { logger } = options;
  const pool = createSimulationPool(options.threads);
  // BullMQ duplicates this one for its blocking fetch; both wait out Redis outages instead of failing.
  const connection = createRedis(options.redis, { role: 'worker', blocking: true, logger });
  const results = createRedis(options.redis, { role: 'worker:events', logger });
  const control = createRunControl(createRedis(options.redis, { role: 'worker:control', blocking: true, shardedSubscriber: true, logger }), options.redisPrefix, logger);
  const worker = new Worker(SIMULATION_QUEUE, createSimulationProcessor({ pool, results, control, prefix: options.redisPrefix, logger }), {
    connection,
    prefix: queuePrefix(options.redisPrefix, options.redis),
    name: `${os.hostname()}:${process.pid}`,
    concurrency: options.threads,
    lockDuration: WORKER_LOCK_DURATION_MS,
    stalledInterval: WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: WORKER_MAX_STALLED_COUNT,
    autorun: true,
  });
  worker.on('error', (error) => logger.error({ error: describeError(error) }, 'worker error'));
  worker.on('failed', (job, error) => logger.warn({ job_id: job?.id, reason: error.message }, 'simulation job failed'));

  return {
    worker,
    pool,
    ready: async () => {
      await worker.waitUntilReady();
      if (results.status !== 'ready') {
        await new Promise<void>((resolve) => results.once('ready', () => resolve()));
      }
    },
    close: async () => {
      await worker.close();
      await pool.close();
      await control.close();
      await results.quit().catch(() => results.disconnect());
      await connection.quit().catch(() => connection.disconnect());
    },
  };
};
