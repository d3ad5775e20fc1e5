import { MessageChannel } from 'node:worker_threads';
import { type Job, UnrecoverableError } from 'bullmq';
import type { RedisClient } from '../shared/redis/createRedis.ts';
import { CHUNK_BYTES, estimateRecordBytes } from '../shared/engine/index.ts';
import { describeError } from '../shared/errors/describeError.ts';
import { estimateParquetBytes } from '../shared/parquet/estimateParquetBytes.ts';
import { simulationJobDataSchema } from '../shared/jobs/simulationJob.ts';
import type { Logger } from '../shared/logger.ts';
import type { RunControl } from './createRunControl.ts';
import { appendReplyBy } from './appendReplyBy.ts';
import type { SimulationPool } from './pool.ts';
import { type ChunkSender, createChunkSender, RunAbortedError } from './createChunkSender.ts';
import type { SimulationTaskResult } from './simulationTask.ts';

export interface SimulationProcessorDependencies {
  readonly pool: SimulationPool;
  /** Appends reply entries and reads acknowledgements. */
  readonly results: RedisClient;
  readonly control: RunControl;
  readonly prefix: string;
  readonly logger: Logger;
}

/**
 * The BullMQ processor, kept thin: parse the job, run it in a pool thread bounded by the job's deadline,
 * pass the thread's chunks on to the waiting API process as they come. It returns nothing, so BullMQ's
 * events stream never carries a result. Every failure is unrecoverable: a retry could not finish before
 * the deadline the caller waits on.
 */
export const createSimulationProcessor =
  ({ pool, results, control, prefix, logger }: SimulationProcessorDependencies) =>
  async (job: Job): Promise<void> => {
    const parsed = simulationJobDataSchema.safeParse(job.data);
    if (!parsed.success) {
      logger.error({ job_id: job.id }, 'simulation job data is invalid; dropped');
      throw new UnrecoverableError('invalid job data');
    }
    const data = parsed.data;
    // Replies travel under the run's own id (a replay's differs from the simulation id its body echoes).
    const runId = data.runId ?? data.simulationId;
    const startedAt = Date.now();
    if (startedAt >= data.deadline) {
      // The API process has answered 504 already; running would only waste a thread.
      throw new UnrecoverableError('deadline passed before the run started');
    }
    const stop = new AbortController();
    const signal = AbortSignal.any([AbortSignal.timeout(data.deadline - startedAt), stop.signal]);
    const task = {
      simulationId: data.simulationId,
      preset: data.preset,
      profile: data.profile,
      seed: data.seed,
      numInteractions: data.numInteractions,
      serviceVersion: data.serviceVersion,
      apiVersion: data.apiVersion,
      format: data.format,
    };
    // A run that fits one chunk goes the lean way: no port, the whole body comes back as the task's result.
    // Parquet has its own bound (pass-through for the parquet format).
    const estimate = task.format === 'parquet' ? estimateParquetBytes(task) : estimateRecordBytes(task, task.format);
    const streamed = estimate > CHUNK_BYTES;
    let sender: ChunkSender | undefined;
    let channel: MessageChannel | undefined;
    let result: SimulationTaskResult;
    try {
      if (streamed) {
        channel = new MessageChannel();
        const port = channel.port1;
        const chunkSender = createChunkSender({ redis: results, prefix, job: data, control, signal, abort: (reason) => stop.abort(reason) });
        sender = chunkSender;
        port.on('message', (chunk: Uint8Array) => chunkSender.push(chunk, () => port.postMessage(0)));
        result = await pool.run({ ...task, port: channel.port2 }, { signal, transferList: [channel.port2] as never });
        await chunkSender.flushed(result.chunks);
      } else {
        result = await pool.run(task, { signal });
      }
    } catch (error) {
      if (Date.now() >= data.deadline) {
        // At the deadline the API process ends its answer and asks the run to stop, and piscina's own timer
        // fires too: whichever is noticed first, the deadline ended the run.
        throw new UnrecoverableError('deadline passed during the run');
      }
      if (stop.signal.aborted) {
        const reason = stop.signal.reason as unknown;
        if (reason instanceof RunAbortedError) {
          // Its client left: the API process has settled the run already.
          throw new UnrecoverableError('aborted by its client');
        }
        logger.error({ job_id: job.id, error: describeError(reason) }, 'could not send a simulation');
      } else if (signal.aborted) {
        // piscina has terminated the thread; the API answers 504 (or ends the stream) at the same deadline.
        throw new UnrecoverableError('deadline passed during the run');
      } else {
        logger.error({ job_id: job.id, error: describeError(error) }, 'simulation failed');
      }
      await appendReplyBy(results, data.replyTo, { outcome: 'failed', simulationId: runId, startedAt, finishedAt: Date.now() }, data.deadline).catch(() => {});
      throw new UnrecoverableError('simulation failed');
    } finally {
      sender?.stop();
      channel?.port1.close();
    }
    await appendReplyBy(
      results,
      data.replyTo,
      { outcome: 'completed', simulationId: runId, seq: result.chunks, startedAt, finishedAt: Date.now(), computeMs: result.computeMs },
      data.deadline,
      result.body,
    );
  };
