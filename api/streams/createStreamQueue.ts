import { Queue } from 'bullmq';
import { raceTimeout, TIMED_OUT } from '../../shared/async/raceTimeout.ts';
import { STREAM_QUEUE } from '../../shared/jobs/queueName.ts';
import type { StreamJobData } from '../../shared/jobs/StreamJobData.ts';
import type { Logger } from '../../shared/logger.ts';
import { closeRedis } from '../../shared/redis/closeRedis.ts';
import { createRedis } from '../../shared/redis/createRedis.ts';
import { queuePrefix } from '../../shared/redis/queuePrefix.ts';
import type { RedisTarget } from '../../shared/redis/RedisTarget.ts';

/** The API's side of the streams queue (docs/streams.md). */
export interface StreamQueue {
  /** A job per stream, its id the stream's, so enqueuing twice is once. */
  readonly add: (data: StreamJobData) => Promise<void>;
  readonly close: () => Promise<void>;
}

export const createStreamQueue = (options: { redis: RedisTarget; prefix: string; logger: Logger }): StreamQueue => {
  const connection = createRedis(options.redis, { role: 'api:streams', logger: options.logger });
  const queue = new Queue<StreamJobData>(STREAM_QUEUE, {
    connection,
    prefix: queuePrefix(options.prefix, options.redis),
    defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000, attempts: 1 },
  });
  return {
    add: async (data) => {
      await queue.add('stream', data, { jobId: data.streamId });
    },
    close: async () => {
      // Bounded like the simulation queue's: a Redis link down must not hold the shutdown.
      if ((await raceTimeout(queue.close().catch(() => {}), 5_000)) === TIMED_OUT) await queue.disconnect().catch(() => {});
      await closeRedis(connection);
    },
  };
};
