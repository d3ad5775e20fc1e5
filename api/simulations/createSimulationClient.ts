import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { raceTimeout } from '../../shared/async/raceTimeout.ts';
import type { PresetName } from '../../shared/engine/index.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { serviceUnavailable } from '../../shared/errors/errors.ts';
import { EVENTS_STREAM_MAX_LEN, KEEP_FAILED_JOBS } from '../../shared/jobs/jobPolicy.ts';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import { replyChannel, simulationResultKey } from '../../shared/jobs/resultKeys.ts';
import { SIMULATION_JOB_NAME, type SimulationJobData } from '../../shared/jobs/simulationJob.ts';
import { parseSimulationReply } from '../../shared/jobs/simulationReply.ts';
import type { Logger } from '../../shared/logger.ts';
import { createRedis } from '../../shared/redis/createRedis.ts';
import { API_VERSION } from '../../shared/version.ts';

export interface SimulationJobInput {
  readonly simulationId: string;
  readonly preset: PresetName;
  readonly profile: string;
  readonly seed: number;
  readonly numInteractions: number;
  /** Epoch milliseconds; the wait, queueing included, ends then. */
  readonly deadline: number;
}

/** Times are epoch milliseconds; startedAt and finishedAt of a run are the worker's clock. */
export type SimulationOutcome =
  | { readonly status: 'completed'; readonly body: Buffer; readonly startedAt: number; readonly finishedAt: number; readonly computeMs: number }
  | { readonly status: 'failed'; readonly startedAt: number | null; readonly finishedAt: number }
  | { readonly status: 'timed_out'; readonly finishedAt: number };

export interface SimulationClient {
  readonly queue: Queue;
  /** Throws 503 `service_unavailable` unless the queue and the reply channel are both up, without waiting. */
  readonly assertAvailable: () => void;
  /** Enqueues a run and waits for its outcome; settles by the deadline whatever happens. */
  readonly run: (job: SimulationJobInput) => Promise<SimulationOutcome>;
  /** Resolves once jobs can go out and replies come in, or after timeoutMs, whichever is first. */
  readonly waitUntilReady: (timeoutMs: number) => Promise<void>;
  readonly close: () => Promise<void>;
}

export interface SimulationClientOptions {
  readonly redisUrl: string;
  readonly prefix: string;
  readonly logger: Logger;
}

interface Waiter {
  readonly settle: (outcome: SimulationOutcome) => void;
  readonly fail: (error: unknown) => void;
}

/**
 * The API process's side of the queue. Jobs go out through a fail-fast connection (an outage is an
 * immediate 503, never a hang); results come back through one subscriber per process: each worker notice
 * names a simulation this process waits for, and its bytes are fetched with GETDEL and sent unparsed.
 */
export const createSimulationClient = ({ redisUrl, prefix, logger }: SimulationClientOptions): SimulationClient => {
  const connection = createRedis(redisUrl, { role: 'api:queue' });
  const subscriber = createRedis(redisUrl, { role: 'api:replies', blocking: true });
  const queue = new Queue(SIMULATION_QUEUE, {
    connection,
    prefix,
    streams: { events: { maxLen: EVENTS_STREAM_MAX_LEN } },
    defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: KEEP_FAILED_JOBS },
  });
  // Connection errors repeat on every reconnect attempt; /ready and the 503s already report an outage.
  queue.on('error', (error) => logger.debug({ error: describeError(error) }, 'simulation queue error'));

  const replyTo = replyChannel(prefix, randomUUID());
  const waiters = new Map<string, Waiter>();
  let subscribed = false;
  let closed = false;

  subscriber.on('message', (_channel: string, message: string) => {
    const reply = parseSimulationReply(message);
    if (reply === undefined) {
      logger.warn('malformed simulation reply dropped');
      return;
    }
    const key = simulationResultKey(prefix, reply.simulationId);
    const waiter = waiters.get(reply.simulationId);
    // Later notices for the same id (a job retaken after a stall) find no waiter and are orphans.
    waiters.delete(reply.simulationId);
    if (waiter === undefined) {
      // Its request has timed out; free the bytes now rather than when the key expires.
      if (reply.outcome === 'completed') {
        connection.unlink(key).catch(() => {});
      }
      return;
    }
    if (reply.outcome === 'failed') {
      waiter.settle({ status: 'failed', startedAt: reply.startedAt, finishedAt: reply.finishedAt });
      return;
    }
    connection.getdelBuffer(key).then(
      (body) =>
        waiter.settle(
          body === null
            ? { status: 'failed', startedAt: reply.startedAt, finishedAt: reply.finishedAt }
            : { status: 'completed', body, startedAt: reply.startedAt, finishedAt: reply.finishedAt, computeMs: reply.computeMs },
        ),
      (error: unknown) => {
        logger.warn({ simulation_id: reply.simulationId, error: describeError(error) }, 'could not fetch a simulation result');
        waiter.fail(serviceUnavailable());
      },
    );
  });
  const subscription = subscriber.subscribe(replyTo).then(
    () => {
      subscribed = true;
    },
    (error: unknown) => {
      if (!closed) {
        logger.error({ error: describeError(error) }, 'reply channel subscription failed');
      }
    },
  );

  const assertAvailable = (): void => {
    if (closed || !subscribed || connection.status !== 'ready' || subscriber.status !== 'ready') {
      throw serviceUnavailable();
    }
  };

  // A job still waiting at the deadline is taken off the queue; an active one is aborted by its worker.
  const removeIfWaiting = async (simulationId: string): Promise<void> => {
    try {
      await queue.remove(simulationId);
    } catch (error) {
      logger.warn({ simulation_id: simulationId, error: describeError(error) }, 'could not remove a timed-out job');
    }
  };

  const run = (job: SimulationJobInput): Promise<SimulationOutcome> => {
    try {
      assertAvailable();
    } catch (error) {
      // Always a promise: callers that started other work beside this one settle it all the same way.
      return Promise.reject(error);
    }
    return new Promise<SimulationOutcome>((resolve, reject) => {
      let done = false;
      const finish = (action: () => void): void => {
        if (!done) {
          done = true;
          clearTimeout(timer);
          waiters.delete(job.simulationId);
          action();
        }
      };
      const timer = setTimeout(
        () => finish(() => void removeIfWaiting(job.simulationId).then(() => resolve({ status: 'timed_out', finishedAt: Date.now() }))),
        Math.max(0, job.deadline - Date.now()),
      );
      waiters.set(job.simulationId, { settle: (outcome) => finish(() => resolve(outcome)), fail: (error) => finish(() => reject(error)) });
      const data: SimulationJobData = {
        simulationId: job.simulationId,
        preset: job.preset,
        profile: job.profile,
        seed: job.seed,
        numInteractions: job.numInteractions,
        apiVersion: API_VERSION,
        deadline: job.deadline,
        replyTo,
      };
      queue.add(SIMULATION_JOB_NAME, data, { jobId: job.simulationId }).catch((error: unknown) => {
        logger.warn({ simulation_id: job.simulationId, error: describeError(error) }, 'could not enqueue a simulation');
        finish(() => reject(serviceUnavailable()));
      });
    });
  };

  const waitUntilReady = async (timeoutMs: number): Promise<void> => {
    await raceTimeout(Promise.all([subscription, queue.waitUntilReady()]).catch(() => {}), timeoutMs);
  };

  return {
    queue,
    assertAvailable,
    run,
    waitUntilReady,
    close: async () => {
      closed = true;
      for (const waiter of waiters.values()) {
        waiter.fail(serviceUnavailable());
      }
      await queue.close().catch(() => {});
      subscriber.disconnect();
      await connection.quit().catch(() => connection.disconnect());
    },
  };
};
