import os from 'node:os';
import { DelayedError, Worker } from 'bullmq';
import { Piscina } from 'piscina';
import { createDatabasePool } from '../../shared/db/createDatabasePool.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { WORKER_LOCK_DURATION_MS, WORKER_STALLED_INTERVAL_MS } from '../../shared/jobs/jobPolicy.ts';
import { STREAM_QUEUE } from '../../shared/jobs/queueName.ts';
import type { StreamJobData } from '../../shared/jobs/StreamJobData.ts';
import type { Logger } from '../../shared/logger.ts';
import { closeRedis } from '../../shared/redis/closeRedis.ts';
import { createRedis } from '../../shared/redis/createRedis.ts';
import { queuePrefix } from '../../shared/redis/queuePrefix.ts';
import type { RedisTarget } from '../../shared/redis/RedisTarget.ts';
import { createStreamProgress } from './createStreamProgress.ts';
import { failStream, runStreamJob } from './runStreamJob.ts';
import type { StreamChunk, StreamChunkTask } from './streamChunkTask.ts';

export interface StreamWorker {
  readonly worker: Worker<StreamJobData>;
  readonly ready: () => Promise<void>;
  /** Stops the clocks (their jobs go back to the queue when the lock lapses), then the threads and connections. */
  readonly close: () => Promise<void>;
}

/**
 * The worker's side of live streams (docs/streams.md): a BullMQ worker whose jobs are streams' clocks,
 * `concurrency` of them at once, with the engine work in a piscina pool of `threads` threads, each thread
 * serving every stream in chunks. A stream job lost with its process is taken by another worker after the
 * stalled-job check (BullMQ), which goes on from the row.
 */
export const startStreamWorker = async (options: {
  redis: RedisTarget;
  redisPrefix: string;
  databaseUrl: string;
  threads: number;
  concurrency: number;
  sessionSecret: string;
  webhookAllowPrivate: boolean;
  /** The first webhook retry's wait (1 s when absent); it doubles per try. */
  retryBaseMs?: number;
  logger: Logger;
}): Promise<StreamWorker> => {
  const { logger } = options;
  const pool = await createDatabasePool(options.databaseUrl);
  const threads = new Piscina<StreamChunkTask, StreamChunk>({
    filename: new URL('./runStreamChunk.ts', import.meta.url).href,
    name: 'runStreamChunk',
    minThreads: options.threads,
    maxThreads: options.threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    concurrentTasksPerWorker: 1,
  });
  const connection = createRedis(options.redis, { role: 'worker:streams', blocking: true, logger });
  let stopping = false;
  const progress = createStreamProgress(pool, logger);
  const context = {
    pool,
    threads,
    redis: connection,
    progress,
    stopping: () => stopping,
    sessionSecret: options.sessionSecret,
    webhookAllowPrivate: options.webhookAllowPrivate,
    retryBaseMs: options.retryBaseMs ?? 1000,
  };
  const worker = new Worker<StreamJobData>(
    STREAM_QUEUE,
    async (job, token) => {
      let outcome: 'done' | 'stopped';
      try {
        outcome = await runStreamJob(context, job);
      } catch (error) {
        if (stopping) throw error;
        logger.error({ stream_id: job.data.streamId, error: describeError(error) }, 'stream failed');
        await failStream(context, job.data, 'The stream could not be continued.');
        return;
      }
      if (outcome === 'stopped' && token !== undefined) {
        // A graceful stop hands the clock back to the queue: another worker (or this one restarted) goes on.
        await job.moveToDelayed(Date.now() + 100, token);
        throw new DelayedError();
      }
    },
    {
      connection,
      prefix: queuePrefix(options.redisPrefix, options.redis),
      name: `${os.hostname()}:${process.pid}:streams`,
      concurrency: options.concurrency,
      lockDuration: WORKER_LOCK_DURATION_MS,
      stalledInterval: WORKER_STALLED_INTERVAL_MS,
      // A stream outlives many lost workers: it is always resumed from its row.
      maxStalledCount: 1_000_000,
      autorun: true,
    },
  );
  worker.on('error', (error) => logger.error({ error: describeError(error) }, 'stream worker error'));
  return {
    worker,
    ready: async () => {
      await worker.waitUntilReady();
    },
    close: async () => {
      stopping = true;
      await worker.close();
      await progress.close();
      await threads.close();
      await closeRedis(connection);
      await pool.end();
    },
  };
};
