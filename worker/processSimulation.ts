import { type Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { describeError } from '../shared/errors/describeError.ts';
import { simulationJobDataSchema } from '../shared/jobs/simulationJob.ts';
import type { Logger } from '../shared/logger.ts';
import { deliverFailure, deliverResult } from './deliverReply.ts';
import type { SimulationPool } from './pool.ts';
import type { SimulationTaskResult } from './simulationTask.ts';

export interface SimulationProcessorDependencies {
  readonly pool: SimulationPool;
  /** Stores result bytes and publishes notices. */
  readonly results: Redis;
  readonly prefix: string;
  readonly logger: Logger;
}

/**
 * The BullMQ processor, kept thin: parse the job, run it in a pool thread bounded by the job's deadline,
 * hand the bytes to the waiting API process. It returns nothing, so BullMQ's events stream never carries
 * a result. Every failure is unrecoverable: a retry could not finish before the deadline the caller waits on.
 */
export const createSimulationProcessor =
  ({ pool, results, prefix, logger }: SimulationProcessorDependencies) =>
  async (job: Job): Promise<void> => {
    const parsed = simulationJobDataSchema.safeParse(job.data);
    if (!parsed.success) {
      logger.error({ job_id: job.id }, 'simulation job data is invalid; dropped');
      throw new UnrecoverableError('invalid job data');
    }
    const data = parsed.data;
    const startedAt = Date.now();
    if (startedAt >= data.deadline) {
      // The API process has answered 504 already; running would only waste a thread.
      throw new UnrecoverableError('deadline passed before the run started');
    }
    const signal = AbortSignal.timeout(data.deadline - startedAt);
    let result: SimulationTaskResult;
    try {
      result = await pool.run(
        {
          simulationId: data.simulationId,
          preset: data.preset,
          profile: data.profile,
          seed: data.seed,
          numInteractions: data.numInteractions,
          apiVersion: data.apiVersion,
        },
        { signal },
      );
    } catch (error) {
      if (signal.aborted) {
        // piscina has terminated the thread; the API answers 504 at the same deadline.
        throw new UnrecoverableError('deadline passed during the run');
      }
      logger.error({ job_id: job.id, error: describeError(error) }, 'simulation failed');
      await deliverFailure(results, data, { outcome: 'failed', simulationId: data.simulationId, startedAt, finishedAt: Date.now() });
      throw new UnrecoverableError('simulation failed');
    }
    await deliverResult(results, prefix, data, result.body, {
      outcome: 'completed',
      simulationId: data.simulationId,
      startedAt,
      finishedAt: Date.now(),
      computeMs: result.computeMs,
    });
  };
