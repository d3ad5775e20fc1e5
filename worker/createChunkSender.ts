import type { RedisClient } from '../shared/redis/createRedis.ts';
import { simulationAckKey, STREAM_WINDOW_CHUNKS } from '../shared/jobs/replyKeys.ts';
import type { SimulationJobData } from '../shared/jobs/simulationJob.ts';
import { appendReply } from './appendReply.ts';
import type { RunControl } from './createRunControl.ts';

/** How long to wait for an acknowledgement notice before reading the ack key (a notice may be lost). */
const ACK_RECHECK_MS = 500;

export interface ChunkSender {
  /** Queues a chunk from the thread; `taken` is called once it is in Redis, to let the thread go on. */
  readonly push: (chunk: Uint8Array, taken: () => void) => void;
  /** Resolves once `count` chunks are in Redis; rejects if sending failed or the run was aborted. */
  readonly flushed: (count: number) => Promise<void>;
  readonly stop: () => void;
}

export class RunAbortedError extends Error {}

/**
 * Moves a run's chunks from its thread to the reply stream in order, never more than
 * STREAM_WINDOW_CHUNKS ahead of what the API process acknowledged. On an abort (the client left) or a
 * failure it calls `abort`, which ends the thread's work.
 */
export const createChunkSender = (options: {
  readonly redis: RedisClient;
  readonly prefix: string;
  readonly job: SimulationJobData;
  readonly control: RunControl;
  readonly signal: AbortSignal;
  readonly abort: (reason: Error) => void;
}): ChunkSender => {
  const { redis, job, control, signal } = options;
  // Acknowledgements and chunks are keyed by the run's own id (a replay's differs from its simulation id).
  const runId = job.runId ?? job.simulationId;
  let sent = 0;
  let acked = 0;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  let chain = Promise.resolve();
  const fail = (error: Error): void => {
    failure ??= error;
    wake?.();
    options.abort(failure);
  };
  const stopWatching = control.watch(runId, {
    onAck: (count) => {
      acked = Math.max(acked, count);
      wake?.();
    },
    onAbort: () => fail(new RunAbortedError('aborted by its API process')),
  });
  const onAbort = (): void => wake?.();
  signal.addEventListener('abort', onAbort);

  const waitForWindow = async (): Promise<void> => {
    while (sent - acked >= STREAM_WINDOW_CHUNKS && failure === undefined && !signal.aborted) {
      let timer: NodeJS.Timeout | undefined;
      const woken = await new Promise<boolean>((resolve) => {
        wake = () => resolve(true);
        timer = setTimeout(() => resolve(false), ACK_RECHECK_MS);
      });
      clearTimeout(timer);
      wake = undefined;
      if (!woken) {
        const stored = await redis.get(simulationAckKey(options.prefix, runId));
        if (stored === 'abort') {
          fail(new RunAbortedError('aborted by its API process'));
        } else if (stored !== null) {
          acked = Math.max(acked, Number(stored));
        }
      }
    }
  };

  // Appends are issued without waiting for each reply (one connection keeps them in order), so a chunk's
  // round trip overlaps the next chunk's printing; the window, not the round trip, bounds what is in flight.
  let lastAppend: Promise<unknown> = Promise.resolve();
  return {
    push: (chunk, taken) => {
      chain = chain.then(async () => {
        if (failure !== undefined || signal.aborted) {
          return;
        }
        try {
          await waitForWindow();
          if (failure !== undefined || signal.aborted) {
            return;
          }
          lastAppend = appendReply(redis, job.replyTo, { outcome: 'chunk', simulationId: runId, seq: sent, controlTo: control.channel }, chunk);
          lastAppend.catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
          sent++;
          taken();
        } catch (error) {
          fail(error instanceof Error ? error : new Error(String(error)));
        }
      });
    },
    flushed: async (count) => {
      while (sent < count && failure === undefined && !signal.aborted) {
        // Chunks and the task's result arrive on different ports: the last chunks may still be on their way.
        await chain;
        if (sent < count) {
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      await lastAppend.catch(() => {});
      if (failure !== undefined) {
        throw failure;
      }
      if (sent < count) {
        throw new RunAbortedError('deadline passed while sending');
      }
    },
    stop: () => {
      stopWatching();
      signal.removeEventListener('abort', onAbort);
    },
  };
};
