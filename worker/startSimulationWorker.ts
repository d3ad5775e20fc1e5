import os from 'node:os';
import { Worker } from 'bullmq';
import { raceTimeout, TIMED_OUT } from '../shared/async/raceTimeout.ts';
import { describeError } from '../shared/errors/describeError.ts';
import { WORKER_LOCK_DURATION_MS, WORKER_MAX_STALLED_COUNT, WORKER_STALLED_INTERVAL_MS } from '../shared/jobs/jobPolicy.ts';
import { SIMULATION_QUEUE } from '../shared/jobs/queueName.ts';
import type { Logger } from '../shared/logger.ts';
import { createRedis } from '../shared/redis/createRedis.ts';
import { closeRedis } from '../shared/redis/closeRedis.ts';
import { queuePrefix } from '../shared/redis/queuePrefix.ts';
import type { RedisTarget } from '../shared/redis/RedisTarget.ts';
import { createSimulationPool, type SimulationPool } from './pool.ts';
import { createDataPlaneClient } from './createDataPlaneClient.ts';
import { createSimulationProcessor } from './createSimulationProcessor.ts';

export interface StartSimulationWorkerOptions {
  readonly redis: RedisTarget;
  readonly redisPrefix: string;
  /** Engine threads of the pool. */
  readonly threads: number;
  /**
   * Runs at once (BullMQ's concurrency), shared out among the threads, which serve theirs in turns: a run
   * held by a client that does not read then holds no thread. Threads when absent.
   */
  readonly concurrency?: number;
  /**
   * How long close() waits for BullMQ to finish the active jobs and let go of Redis before it stops the
   * threads and the connections anyway (60 s when absent; the process passes its simulation deadline).
   */
  readonly closeTimeoutMs?: number;
  readonly logger: Logger;
}

export interface SimulationWorker {
  readonly worker: Worker;
  readonly pool: SimulationPool;
  /** Resolves once the Redis connection is up (tests wait on it). */
  readonly ready: () => Promise<void>;
  /** Finishes active jobs, then stops the threads, then closes Redis. */
  readonly close: () => Promise<void>;
}

/** Everything a worker process runs, without signals or exit, so tests can run it in their own process. */
export const startSimulationWorker = (options: StartSimulationWorkerOptions): SimulationWorker => {
  const { logger } = options;
  const concurrency = options.concurrency ?? options.threads;
  const pool = createSimulationPool(options.threads, concurrency);
  // BullMQ duplicates this one for its blocking fetch; it waits out Redis outages instead of failing.
  const connection = createRedis(options.redis, { role: 'worker', blocking: true, logger });
  const dataPlane = createDataPlaneClient(logger);
  const worker = new Worker(SIMULATION_QUEUE, createSimulationProcessor({ pool, dataPlane, logger }), {
    connection,
    prefix: queuePrefix(options.redisPrefix, options.redis),
    name: `${os.hostname()}:${process.pid}`,
    concurrency,
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
    },
    close: async () => {
      // BullMQ's close waits for its blocking connection's 'end', which an ioredis Cluster disconnected
      // while it reconnects never emits; left unbounded, the threads and the connection below would then
      // stay open for good and the process could never exit. Past the bound, everything is stopped anyway.
      if ((await raceTimeout(worker.close(), options.closeTimeoutMs ?? 60_000)) === TIMED_OUT) {
        logger.error('the queue worker did not close in time; stopping the threads and connections anyway');
      }
      dataPlane.close();
      await pool.close();
      await closeRedis(connection);
    },
  };
};
