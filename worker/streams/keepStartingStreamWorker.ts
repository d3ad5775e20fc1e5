import { setTimeout as delay } from 'node:timers/promises';
import { describeError } from '../../shared/errors/describeError.ts';
import type { Logger } from '../../shared/logger.ts';
import type { StreamWorker } from './startStreamWorker.ts';

const FIRST_WAIT_MS = 500;
const LONGEST_WAIT_MS = 30_000;

export interface StreamSide {
  /** Resolves once the stream worker takes jobs (never while PostgreSQL stays unreachable). */
  readonly ready: () => Promise<void>;
  /** Stops trying, and closes the stream worker if it started. */
  readonly close: () => Promise<void>;
}

/**
 * Starts a worker process's stream side without making its simulations wait on it: simulations need only
 * Redis, streams also need PostgreSQL (their rows), so a PostgreSQL that is unreachable when the process
 * starts costs the streams, not the simulations (docs/streams.md#how-it-runs-and-what-survives-a-loss).
 * Until the stream worker starts, stream jobs wait in their queue for this process or another.
 */
export const keepStartingStreamWorker = (start: () => Promise<StreamWorker>, logger: Logger): StreamSide => {
  let stopping = false;
  const stopped = new AbortController();
  const started = (async (): Promise<StreamWorker | undefined> => {
    for (let wait = FIRST_WAIT_MS; !stopping; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
      try {
        const worker = await start();
        await worker.ready();
        logger.info('stream worker ready');
        return worker;
      } catch (error) {
        if (stopping) return undefined;
        logger.error({ error: describeError(error), retry_in_ms: wait }, 'stream worker could not start; simulations go on, streams wait');
        await delay(wait, undefined, { signal: stopped.signal }).catch(() => undefined);
      }
    }
    return undefined;
  })();
  return {
    ready: async () => {
      await started;
    },
    close: async () => {
      stopping = true;
      stopped.abort();
      const worker = await started;
      await worker?.close();
    },
  };
};
