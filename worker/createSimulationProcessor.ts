import { setTimeout as delay } from 'node:timers/promises';
import { type Job, UnrecoverableError } from 'bullmq';
import { CHUNK_BYTES, estimateRecordBytes } from '../shared/engine/index.ts';
import { estimateParquetBytes } from '../shared/parquet/estimateParquetBytes.ts';
import { simulationJobDataSchema } from '../shared/jobs/simulationJob.ts';
import type { Logger } from '../shared/logger.ts';
import type { DataPlaneClient } from './createDataPlaneClient.ts';
import type { SimulationPool } from './pool.ts';
import { runInputOf } from './runInputOf.ts';
import { sendRun } from './sendRun.ts';

export interface SimulationProcessorDependencies {
  readonly pool: SimulationPool;
  readonly dataPlane: DataPlaneClient;
  readonly logger: Logger;
}

/** What a job whose run was stopped for its client completes with. */
const CANCELLED = 'cancelled';

/** Attempts to deliver one run over links that keep breaking, before the job is given up. */
const MAX_SEND_ATTEMPTS = 5;
const FIRST_BACKOFF_MS = 50;

/**
 * The BullMQ processor, kept thin: parse the job, run it in a pool thread and send its bytes to the
 * waiting API process over the data plane (worker/sendRun.ts), again from where the client's body stands
 * when the link breaks. It returns no result, so BullMQ's events stream never carries one: only the word
 * `cancelled` for a run whose client left, which completes the job rather than failing it (a client that
 * leaves is not a failure of ours: docs/operations.md). Every failure is unrecoverable: BullMQ's own retry
 * could not finish before the deadline the caller waits on (a worker that dies is another matter: its
 * stalled job is taken over, and resumed, by another worker).
 */
export const createSimulationProcessor =
  ({ pool, dataPlane, logger }: SimulationProcessorDependencies) =>
  async (job: Job, token?: string): Promise<typeof CANCELLED | undefined> => {
    const parsed = simulationJobDataSchema.safeParse(job.data);
    if (!parsed.success) {
      logger.error({ job_id: job.id }, 'simulation job data is invalid; dropped');
      throw new UnrecoverableError('invalid job data');
    }
    // Where the answer goes stays here; the rest is the task a pool thread runs.
    const { runId: ownRunId, deadline, replyTo, ...task } = parsed.data;
    // The run's own id (a replay's differs from the simulation id its body echoes).
    const runId = ownRunId ?? task.simulationId;
    const startedAt = Date.now();
    if (startedAt >= deadline) {
      // The API process has answered 504 already; running would only waste a thread.
      throw new UnrecoverableError('deadline passed before the run started');
    }
    if (token === undefined) {
      // Without its lock token no API process would take the run's bytes from this worker.
      throw new UnrecoverableError('job taken without a lock');
    }
    let estimate: number;
    try {
      // A run that fits one chunk goes the lean way: no port, the whole body comes back as the task's result.
      // A model's definition is checked and compiled here (cached by digest) before any thread takes it.
      const input = runInputOf(task);
      estimate = task.format === 'parquet' ? estimateParquetBytes(input) : estimateRecordBytes(input, task.format);
    } catch {
      // A model whose definition does not check (or is not its digest's), or an engine without the preset.
      logger.error({ job_id: job.id }, 'simulation job names nothing this worker can run; dropped');
      throw new UnrecoverableError('nothing to run');
    }
    const streamed = estimate > CHUNK_BYTES;
    for (let attempt = 1; ; attempt++) {
      const outcome = await sendRun({
        dataPlane,
        address: replyTo,
        runId,
        token,
        attempt,
        pool,
        task,
        streamed,
        startedAt,
        deadline,
      });
      switch (outcome) {
        case 'delivered':
          return undefined;
        case 'stopped':
          // Its client left, stopped reading or held the run back until the deadline: the API settles the
          // run `cancelled`, not a failure of ours; the job is done.
          return CANCELLED;
        case 'deadline':
          throw new UnrecoverableError('deadline passed during the run');
        case 'refused':
          throw new UnrecoverableError('no API process waits for this run from this worker');
        case 'failed':
          logger.error({ job_id: job.id }, 'simulation failed');
          throw new UnrecoverableError('simulation failed');
        case 'lost':
          break;
      }
      if (attempt >= MAX_SEND_ATTEMPTS || Date.now() >= deadline) {
        throw new UnrecoverableError(Date.now() >= deadline ? 'deadline passed during the run' : 'data plane link lost');
      }
      logger.warn({ job_id: job.id, attempt }, 'data plane link lost; resuming the run');
      await delay(Math.min(FIRST_BACKOFF_MS * 2 ** (attempt - 1), Math.max(0, deadline - Date.now())));
    }
  };
