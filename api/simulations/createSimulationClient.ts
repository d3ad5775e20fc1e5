import http2 from 'node:http2';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { raceTimeout, TIMED_OUT } from '../../shared/async/raceTimeout.ts';
import type { OutputFormat } from '../../shared/engine/index.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { serviceUnavailable } from '../../shared/errors/errors.ts';
import { EVENTS_STREAM_MAX_LEN, KEEP_FAILED_JOBS } from '../../shared/jobs/jobPolicy.ts';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import { SIMULATION_JOB_NAME, type SimulationJobData } from '../../shared/jobs/simulationJob.ts';
import type { Logger } from '../../shared/logger.ts';
import { createRedis } from '../../shared/redis/createRedis.ts';
import { closeRedis } from '../../shared/redis/closeRedis.ts';
import { queuePrefix } from '../../shared/redis/queuePrefix.ts';
import type { RedisTarget } from '../../shared/redis/RedisTarget.ts';
import { API_VERSION } from '../../shared/version.ts';
import { createRunReply, type RunReply } from './createRunReply.ts';
import { startDataPlane } from './startDataPlane.ts';

/**
 * A job as its caller gives it (shared/jobs/simulationJob.ts): the run's specification, its own id when it
 * is not the simulation's (a replay), its deadline (epoch ms: the wait, queueing included, ends then) and
 * its format (JSON when absent); this client adds where to answer and the API's version.
 */
export type SimulationJobInput = Omit<SimulationJobData, 'apiVersion' | 'replyTo' | 'format'> & { readonly format?: OutputFormat };

/**
 * Where a streamed run's bytes go as they arrive, in order. `write` resolves when the next bytes may come
 * (back-pressure reaches the worker as HTTP/2 window) and rejects when the client is gone or stopped
 * reading; `signal` aborts the run.
 */
export interface SimulationSink {
  readonly write: (chunk: Buffer) => Promise<void>;
  readonly signal?: AbortSignal;
}

/**
 * Times are epoch milliseconds; startedAt and finishedAt of a run are the worker's clock. A completed
 * run's body is what came after the bytes written to the sink: its whole body when nothing was streamed.
 * A cancelled run's client left, stopped reading, or held the run on its back-pressure until the deadline:
 * `records` is what it is charged for, null when no bytes had gone to it (given back whole).
 */
export type SimulationOutcome =
  | { readonly status: 'completed'; readonly body: Buffer; readonly startedAt: number; readonly finishedAt: number; readonly computeMs: number }
  | { readonly status: 'failed'; readonly startedAt: number | null; readonly finishedAt: number }
  | { readonly status: 'timed_out'; readonly finishedAt: number }
  | { readonly status: 'cancelled'; readonly startedAt: number | null; readonly finishedAt: number; readonly records: number | null };

export interface SimulationClient {
  readonly queue: Queue;
  /** Throws 503 `service_unavailable` unless the queue and the data plane are both up, without waiting. */
  readonly assertAvailable: () => void;
  /**
   * Enqueues a run and waits for its outcome; settles by the deadline whatever happens. Without a sink, a
   * streamed run's bytes are gathered into the outcome's body.
   */
  readonly run: (job: SimulationJobInput, sink?: SimulationSink) => Promise<SimulationOutcome>;
  /** Resolves once jobs can go out and results come in, or after timeoutMs, whichever is first. */
  readonly waitUntilReady: (timeoutMs: number) => Promise<void>;
  readonly close: () => Promise<void>;
}

export interface SimulationClientOptions {
  readonly redis: RedisTarget;
  readonly prefix: string;
  readonly logger: Logger;
  readonly dataPlane: { readonly host: string; readonly port: number; readonly advertiseHost: string | undefined; readonly advertisePort: number | undefined };
}

interface Waiter {
  /** Set once the job is on the queue: from then on a missing job means Redis lost it. */
  enqueued: boolean;
  readonly reply: RunReply;
  readonly fail: (error: unknown) => void;
}

/** How often the process checks that its Redis data is still there (its marker key). */
const DATA_CHECK_INTERVAL_MS = 1000;

/**
 * The API process's side of the queue and of the data plane. Jobs go out through a fail-fast connection
 * (an outage is an immediate 503, never a hang), carrying this process's data plane address; results come
 * back on that port, straight from the worker that holds the run (shared/jobs/dataPlaneProtocol.ts), and
 * are handed to the run waiting for them: a dispatcher, and a state machine per run (createRunReply.ts).
 */
export const createSimulationClient = ({ redis, prefix, logger, dataPlane: plane }: SimulationClientOptions): SimulationClient => {
  const connection = createRedis(redis, { role: 'api:queue', logger });
  const jobPrefix = queuePrefix(prefix, redis);
  const queue = new Queue(SIMULATION_QUEUE, {
    connection,
    prefix: jobPrefix,
    streams: { events: { maxLen: EVENTS_STREAM_MAX_LEN } },
    defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: KEEP_FAILED_JOBS },
  });
  // Connection errors repeat on every reconnect attempt; /ready and the 503s already report an outage.
  queue.on('error', (error) => logger.debug({ error: describeError(error) }, 'simulation queue error'));

  const aliveKey = `${prefix}:api-alive:{${randomUUID()}}`;
  const waiters = new Map<string, Waiter>();
  let closed = false;
  let address: string | undefined;

  // Only the worker holding the run's job (its BullMQ lock token) may answer for it.
  const holdsLock = async (runId: string, token: string): Promise<boolean> => (await connection.get(queue.toKey(`${runId}:lock`))) === token;
  const dataPlane = startDataPlane({
    ...plane,
    logger,
    onRun: (runId, token, stream) => {
      const waiter = waiters.get(runId);
      if (waiter === undefined) {
        stream.respond({ ':status': 404 }, { endStream: true });
        return;
      }
      holdsLock(runId, token).then(
        (holds) => {
          if (holds) {
            waiter.reply.attach(stream);
          } else {
            logger.warn({ simulation_id: runId }, 'a worker without the lock tried to answer for a run; refused');
            stream.respond({ ':status': 403 }, { endStream: true });
          }
        },
        () => stream.close(http2.constants.NGHTTP2_REFUSED_STREAM),
      );
    },
  });
  dataPlane.address.then(
    (origin) => {
      address = origin;
    },
    (error: unknown) => logger.error({ error: describeError(error) }, 'data plane could not listen'),
  );

  // Redis losing its data (FLUSHALL, a restart without persistence) takes the jobs with it: the runs whose
  // job is gone are answered 503 now rather than at their deadline.
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
    for (const [runId] of pending) {
      // One slot on a cluster too: every job key carries the queue's hash tag.
      jobs.exists(queue.toKey(runId));
    }
    const found = (await jobs.exec()) ?? [];
    pending.forEach(([runId, waiter], index) => {
      if (found[index]?.[1] === 0) {
        logger.warn({ simulation_id: runId }, 'simulation job lost with the Redis data');
        waiter.fail(serviceUnavailable());
      }
    });
  };
  // A job its worker gave up on (the run's resumption failed: the data plane stayed unreachable, or no
  // API process would take the run from it) fails in BullMQ with nobody to tell this process: its run
  // answers 503 now, given back, rather than 504 at its deadline.
  const checkFailed = async (): Promise<void> => {
    const pending = [...waiters].filter(([, waiter]) => waiter.enqueued);
    if (pending.length === 0) {
      return;
    }
    const scores = connection.pipeline();
    for (const [runId] of pending) {
      scores.zscore(queue.toKey('failed'), runId);
    }
    const found = (await scores.exec()) ?? [];
    pending.forEach(([runId, waiter], index) => {
      const [error, score] = found[index] ?? [];
      if (error === null && typeof score === 'string') {
        logger.warn({ simulation_id: runId }, 'simulation job failed before its run was delivered');
        waiter.fail(serviceUnavailable());
      }
    });
  };
  const runCheck = (): void => {
    checkData().catch((error: unknown) => logger.debug({ error: describeError(error) }, 'could not check the Redis data'));
    checkFailed().catch((error: unknown) => logger.debug({ error: describeError(error) }, 'could not check for failed jobs'));
  };
  const dataCheck = setInterval(runCheck, DATA_CHECK_INTERVAL_MS);
  dataCheck.unref();
  connection.on('ready', runCheck);

  const assertAvailable = (): void => {
    if (closed || connection.status !== 'ready' || address === undefined) {
      throw serviceUnavailable();
    }
  };

  // A job still waiting at the deadline is taken off the queue; an active one is stopped through its stream.
  const removeIfWaiting = async (runId: string): Promise<void> => {
    try {
      await queue.remove(runId);
    } catch (error) {
      logger.debug({ simulation_id: runId, error: describeError(error) }, 'could not remove an ended job');
    }
  };

  const run = (job: SimulationJobInput, sink?: SimulationSink): Promise<SimulationOutcome> => {
    try {
      assertAvailable();
    } catch (error) {
      // Always a promise: callers that started other work beside this one settle it all the same way.
      return Promise.reject(error);
    }
    const runId = job.runId ?? job.simulationId;
    return new Promise<SimulationOutcome>((resolve, reject) => {
      let done = false;
      let startedAt: number | null = null;
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
      // The run ends here before its worker knows: stop its stream and free its place on the queue.
      // `timed_out` tells its worker the deadline came with the service behind (its job then fails).
      const stopRun = (reason: 'ended' | 'timed_out'): void => {
        reply.stop(reason);
        void removeIfWaiting(runId);
      };
      const cancelled = (): void =>
        finish(() => {
          stopRun('ended');
          // Charged only once bytes went to the client, for the records made through them.
          const charged = reply.delivered() > 0 ? Math.min(job.numInteractions, reply.records()) : null;
          resolve({ status: 'cancelled', startedAt, finishedAt: Date.now(), records: charged });
        });
      const onClientGone = (): void => cancelled();
      // Set while the run's bytes wait on its client's back-pressure (the sink's write has not resolved).
      let waitingOnClient = false;
      const timer = setTimeout(() => {
        if (waitingOnClient) {
          // The deadline came while the run waited on its client: the client's doing, not the service's
          // (docs/fair-use.md), settled like a client that left: charged for what it was sent.
          cancelled();
          return;
        }
        finish(() => {
          stopRun('timed_out');
          resolve({ status: 'timed_out', finishedAt: Date.now() });
        });
      }, Math.max(0, job.deadline - Date.now()));
      sink?.signal?.addEventListener('abort', onClientGone);

      const reply = createRunReply({
        write: async (bytes) => {
          startedAt ??= Date.now();
          waitingOnClient = true;
          try {
            await write(bytes);
          } finally {
            waitingOnClient = false;
          }
        },
        onWriteFailed: cancelled,
        onEnd: (end) =>
          finish(() => {
            if (end.outcome === 'failed') {
              resolve({ status: 'failed', startedAt: end.startedAt, finishedAt: end.finishedAt });
              return;
            }
            resolve({
              status: 'completed',
              body: gathered.length === 0 ? end.last : Buffer.concat([...gathered, end.last]),
              startedAt: end.startedAt,
              finishedAt: end.finishedAt,
              computeMs: end.computeMs,
            });
          }),
      }, job.numInteractions);
      const waiter: Waiter = {
        enqueued: false,
        reply,
        fail: (error) =>
          finish(() => {
            stopRun('ended');
            reject(error);
          }),
      };
      waiters.set(runId, waiter);
      const { runId: _runId, format, ...rest } = job;
      const data: SimulationJobData = { ...rest, ...(runId === job.simulationId ? {} : { runId }), apiVersion: API_VERSION, replyTo: address!, format: format ?? 'json' };
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
    await raceTimeout(Promise.all([dataPlane.address, queue.waitUntilReady()]).catch(() => {}), timeoutMs);
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
      // Each step is bounded: a Redis link down or a Cluster reconnecting must not hold the shutdown.
      await raceTimeout(connection.del(aliveKey).catch(() => {}), 1_000);
      if ((await raceTimeout(queue.close().catch(() => {}), 5_000)) === TIMED_OUT) await queue.disconnect().catch(() => {});
      await dataPlane.close();
      await closeRedis(connection);
    },
  };
};
