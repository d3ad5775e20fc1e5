import type { Queue } from 'bullmq';
import type { Gauge } from 'prom-client';
import { describeError } from '../../shared/errors/describeError.ts';
import type { Logger } from '../../shared/logger.ts';

export const QUEUE_STATES = ['waiting', 'active', 'completed', 'failed', 'delayed'] as const;

// A scrape must answer even when Redis does not: past this, the queue series are left out. Milliseconds.
const COUNTS_TIMEOUT_MS = 1000;

/** Reads the simulation queue's job counts at scrape time; on a Redis outage the series are absent, not stale. */
export const collectQueueCounts = async (gauge: Gauge<'state'>, queue: Queue, logger: Logger): Promise<void> => {
  gauge.reset();
  let timer: NodeJS.Timeout | undefined;
  try {
    const counts = await Promise.race([
      queue.getJobCounts(...QUEUE_STATES),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('queue counts timed out')), COUNTS_TIMEOUT_MS);
      }),
    ]);
    for (const state of QUEUE_STATES) {
      gauge.set({ state }, counts[state] ?? 0);
    }
  } catch (error) {
    logger.debug({ error: describeError(error) }, 'queue job counts unavailable');
  } finally {
    clearTimeout(timer);
  }
};
