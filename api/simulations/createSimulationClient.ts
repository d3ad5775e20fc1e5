import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { raceTimeout } from '../../shared/async/raceTimeout.ts';
import type { OutputFormat, PresetName } from '../../shared/engine/index.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { serviceUnavailable } from '../../shared/errors/errors.ts';
import { EVENTS_STREAM_MAX_LEN, KEEP_FAILED_JOBS } from '../../shared/jobs/jobPolicy.ts';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import { controlMessage, REPLY_TTL_MS, replyAliveKey, replyStreamKey, simulationAckKey } from '../../shared/jobs/replyKeys.ts';
import { SIMULATION_JOB_NAME, type SimulationJobData } from '../../shared/jobs/simulationJob.ts';
import type { SimulationReply } from '../../shared/jobs/simulationReply.ts';
import type { Logger } from '../../shared/logger.ts';
import { createRedis } from '../../shared/redis/createRedis.ts';
import { queuePrefix } from '../../shared/redis/queuePrefix.ts';
import type { RedisTarget } from '../../shared/redis/RedisTarget.ts';
import { API_VERSION } from '../../shared/version.ts';
import { readReplyStream } from './readReplyStream.ts';

interface SimulationJobInput {
  readonly simulationId: string;
  readonly preset: PresetName;
  readonly profile: string;
  readonly seed: number;
  readonly numInteractions: number;
  /** The exact engine version to run. */
  readonly serviceVersion: string;
  /**
   * The job's own id when it is not the simulation id: a replay of a recorded run, which may be in flight
   * more than once at a time. Job id, waiter, acknowledgements and replies all use it.
   */
  readonly runId?: string;
  /** Epoch milliseconds; the wait, queueing included, ends then. */
  readonly deadline: number;
  /** JSON when absent. */
  readonly format?: OutputFormat;
}

/**
 * Where a streamed run's chunks go as they arrive, in order. `write` resolves when the next chunk may
 * come (back-pressure reaches the worker through the acknowledgements); `signal` aborts the run.
 */
export interface SimulationSink {
  readonly write: (chunk: Buffer) => Promise<void>;
  readonly signal?: AbortSignal;
}

/**
 * Times are epoch milliseconds; startedAt and finishedAt of a run are the worker's clock. A completed
 * run's body is what came after the chunks written to the sink: its whole body when nothing was streamed.
 */
export type SimulationOutcome =
  | { readonly status: 'completed'; readonly body: Buffer; readonly startedAt: number; readonly finishedAt: number; readonly computeMs: number }
  | { readonly status: 'failed'; readonly startedAt: number | null; readonly finishedAt: number }
  | { readonly status: 'timed_out'; readonly finishedAt: number };

export interface SimulationClient {
  readonly queue: Queue;
  /** Throws 503 `service_unavailable` unless the queue and the reply stream are both up, without waiting. */
  readonly assertAvailable: () => void;
  /**
   * Enqueues a run and waits for its outcome; settles by the deadline whatever happens. Without a sink, a
   * streamed run's chunks are gathered into the outcome's body.
   */
  readonly run: (job: SimulationJobInput, sink?: SimulationSink) => Promise<SimulationOutcome>;
  /** Resolves once jobs can go out and replies come in, or after timeoutMs, whichever is first. */
  readonly waitUntilReady: (timeoutMs: number) => Promise<void>;
  readonly close: () => Promise<void>;
}

export interface SimulationClientOptions {
  readonly redis: RedisTarget;
  readonly prefix: string;
  readonly logger: Logger;
}

interface Waiter {
  /** Set once the job is on the queue: from then on a missing job means Redis lost it. */
  enqueued: boolean;
  readonly receive: (reply: SimulationReply, body: Buffer | undefined) => void;
  readonly fail: (error: unknown) => void;
}

/** How often the process checks that its Redis data is still there (the reply path's marker key). */
const DATA_CHECK_INTERVAL_MS = 1000;

/**
 * The API process's side of the queue. Jobs go out through a fail-fast connection (an outage is an
 * immediate 503, never a hang); replies come back on the process's own reply stream, read by one blocking
 * reader that hands each entry to the run waiting for it (shared/jobs/replyKeys.ts).
 */
export const createSimulationClient = ({ redis, prefix, logger }: SimulationClientOptions): SimulationClient => {
  const connection = createRedis(redis, { role: 'api:queue', logger });
  const reader = createRedis(redis, { role: 'api:replies', blocking: true, logger });
  const jobPrefix = queuePrefix(prefix, redis);
  const queue = new Queue(SIMULATION_QUEUE, {
    connection,
    prefix: jobPrefix,
    streams: { events: { maxLen: EVENTS_STREAM_MAX_LEN } },
    defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: KEEP_FAILED_JOBS },
  });
  // Connection errors repeat on every reconnect attempt; /ready and the 503s already report an outage.
  queue.on('error', (error) => logger.debug({ error: describeError(error) }, 'simulation queue error'));

  const processId = randomUUID();
  const replyTo = replyStreamKey(prefix, processId);
  const aliveKey = replyAliveKey(prefix, processId);
  const waiters = new Map<string, Waiter>();
  let closed = false;

  const replies = readReplyStream({
    redis: reader,
    deleter: connection,
    stream: replyTo,
    logger,
    isClosed: () => closed,
    onReply: (reply, body) => {
      const waiter = waiters.get(reply.simulationId);
      if (waiter !== undefined) {
        waiter.receive(reply, body);
      } else if (reply.outcome === 'chunk') {
        // Nobody waits for this run any more (its request ended): stop its thread.
        sendControl(reply.simulationId, reply.controlTo, 'abort');
      }
    },
  });

  const sendControl = (simulationId: string, controlTo: string | undefined, acked: number | 'abort'): void => {
    const failed = (error: unknown): void => logger.debug({ simulation_id: simulationId, error: describeError(error) }, 'could not answer a worker');
    if (connection.isCluster) {
      // The ack key and the worker's channel live in different slots: two commands. The notice carries
      // the count itself; the key is only read when a notice was lost, so their order does not matter.
      connection.set(simulationAckKey(prefix, simulationId), String(acked), 'PX', REPLY_TTL_MS).catch(failed);
      if (controlTo !== undefined) {
        connection.spublish(controlTo, controlMessage(simulationId, acked)).catch(failed);
      }
      return;
    }
    const write = connection.multi().set(simulationAckKey(prefix, simulationId), String(acked), 'PX', REPLY_TTL_MS);
    if (controlTo !== undefined) {
      write.publish(controlTo, controlMessage(simulationId, acked));
    }
    write.exec().catch(failed);
  };

  // Redis losing its data (FLUSHALL, a restart without persistence) takes the jobs and replies with it:
  // the runs whose job is gone are answered 503 now rather than at their deadline.
  const checkData = async (): Promise<void> => {
    const previous = await connection.set(aliveKey, '1', 'PX', 10 * DATA_CHECK_INTERVAL_MS, 'GET');
    if (previous !== null) {
      return;
    }
    const pending = [...waiters].filter(([, waiter]) => waiter.enqueued);
    if (pending.length === 0) {
      return;
    }
    const jobs = connection.pipeline();
    for (const [simulationId] of pending) {
      // One slot on a cluster too: every job key carries the queue's hash tag.
      jobs.exists(`${jobPrefix}:${SIMULATION_QUEUE}:${simulationId}`);
    }
    const found = (await jobs.exec()) ?? [];
    pending.forEach(([simulationId, waiter], index) => {
      if (found[index]?.[1] === 0) {
        logger.warn({ simulation_id: simulationId }, 'simulation job lost with the Redis data');
        waiter.fail(serviceUnavailable());
      }
    });
  };
  const runCheck = (): void => {
    checkData().catch((error: unknown) => logger.debug({ error: describeError(error) }, 'could not check the Redis data'));
  };
  const dataCheck = setInterval(runCheck, DATA_CHECK_INTERVAL_MS);
  dataCheck.unref();
  connection.on('ready', runCheck);

  const assertAvailable = (): void => {
    if (closed || connection.status !== 'ready' || reader.status !== 'ready') {
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

  const run = (job: SimulationJobInput, sink?: SimulationSink): Promise<SimulationOutcome> => {
    try {
      assertAvailable();
    } catch (error) {
      // Always a promise: callers that started other work beside this one settle it all the same way.
      return Promise.reject(error);
    }
    // Job id, waiter, acknowledgements and replies use the run's own id; the body echoes simulationId.
    const runId = job.runId ?? job.simulationId;
    return new Promise<SimulationOutcome>((resolve, reject) => {
      let done = false;
      let received = 0;
      let controlTo: string | undefined;
      // Chunks go to the sink one after another; the final entry waits for the last of them.
      let writing = Promise.resolve();
      const gathered: Buffer[] = [];
      const write =
        sink?.write ??
        ((chunk: Buffer): Promise<void> => {
          gathered.push(chunk);
          return Promise.resolve();
        });

      const finish = (action: () => void): void => {
        if (!done) {
          done = true;
          clearTimeout(timer);
          sink?.signal?.removeEventListener('abort', onClientGone);
          waiters.delete(runId);
          action();
        }
      };
      // The run ends here before its worker knows: stop its thread and free its place on the queue.
      const stopRun = (): void => {
        sendControl(runId, controlTo, 'abort');
        void removeIfWaiting(runId);
      };
      const failed = (startedAt: number | null): void =>
        finish(() => {
          stopRun();
          resolve({ status: 'failed', startedAt, finishedAt: Date.now() });
        });
      const onClientGone = (): void => failed(null);
      const timer = setTimeout(
        () =>
          finish(() => {
            stopRun();
            resolve({ status: 'timed_out', finishedAt: Date.now() });
          }),
        Math.max(0, job.deadline - Date.now()),
      );
      sink?.signal?.addEventListener('abort', onClientGone);

      const waiter: Waiter = {
        enqueued: false,
        fail: (error) =>
          finish(() => {
            stopRun();
            reject(error);
          }),
        receive: (reply, body) => {
          if (reply.outcome === 'failed') {
            failed(reply.startedAt);
            return;
          }
          if (reply.seq !== received) {
            // The job started over (retaken after its worker died) after bytes went out: it cannot be resumed.
            logger.warn({ simulation_id: runId }, 'simulation started over mid-stream; failed');
            failed(null);
            return;
          }
          const bytes = body ?? Buffer.alloc(0);
          if (reply.outcome === 'chunk') {
            received++;
            controlTo = reply.controlTo;
            const count = received;
            writing = writing.then(async () => {
              if (!done) {
                await write(bytes);
                sendControl(runId, controlTo, count);
              }
            });
            writing.catch(() => failed(null));
            return;
          }
          void writing.then(() =>
            finish(() =>
              resolve({
                status: 'completed',
                body: gathered.length === 0 ? bytes : Buffer.concat([...gathered, bytes]),
                startedAt: reply.startedAt,
                finishedAt: reply.finishedAt,
                computeMs: reply.computeMs,
              }),
            ),
          );
        },
      };
      waiters.set(runId, waiter);
      const data: SimulationJobData = {
        simulationId: job.simulationId,
        ...(runId === job.simulationId ? {} : { runId }),
        preset: job.preset,
        profile: job.profile,
        seed: job.seed,
        numInteractions: job.numInteractions,
        serviceVersion: job.serviceVersion,
        apiVersion: API_VERSION,
        deadline: job.deadline,
        replyTo,
        format: job.format ?? 'json',
      };
      void queue.add(SIMULATION_JOB_NAME, data, { jobId: runId }).then(
        () => {
          waiter.enqueued = true;
        },
        (error: unknown) => {
          logger.warn({ simulation_id: runId, error: describeError(error) }, 'could not enqueue a simulation');
          finish(() => reject(serviceUnavailable()));
        },
      );
    });
  };

  const waitUntilReady = async (timeoutMs: number): Promise<void> => {
    await raceTimeout(Promise.all([replies.ready, queue.waitUntilReady()]).catch(() => {}), timeoutMs);
  };

  return {
    queue,
    assertAvailable,
    run,
    waitUntilReady,
    close: async () => {
      closed = true;
      clearInterval(dataCheck);
      for (const waiter of waiters.values()) {
        waiter.fail(serviceUnavailable());
      }
      await connection.del(aliveKey, replyTo).catch(() => {});
      await queue.close().catch(() => {});
      reader.disconnect();
      // A read queued on a connection that never came up may never settle; the loop ends on its own then.
      await raceTimeout(replies.stopped, 1000);
      await connection.quit().catch(() => connection.disconnect());
    },
  };
};
