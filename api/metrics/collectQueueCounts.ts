import type { Queue } from 'bullmq';
import type { Gauge } from 'prom-client';
import { raceTimeout, TIMED_OUT } from '../../shared/async/raceTimeout.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import type { Logger } from '../../shared/logger.ts';

const QUEUE_STATES = ['waiting', 'active', 'completed', 'failed', 'delayed'] as const;

// A scrape must answer even when Redis does not: past this, the queue series are left out. Milliseconds.
const COUNTS_TIMEOUT_MS = 1000;

/** Reads the simulation queue's job counts at scrape time; on a Redis outage the series are absent, not stale. */
export const collectQueueCounts = async (gauge: Gauge<'state'>, queue: Queue, logger: Logger): Promise<void> => {
  gauge.reset();
  try {
    const counts = await raceTimeout(queue.getJobCounts(...QUEUE_STATES), COUNTS_TIMEOUT_MS);
    if (counts === TIMED_OUT) {
      logger.debug('queue job counts timed out');
      return;
    }
    for (const state of QUEUE_STATES) {
      gauge.set({ state }, counts[state] ?? 0);
    }
  } catch (error) {
    logger.debug({ error: describeError(error) }, 'queue job counts unavailable');
  }
};
