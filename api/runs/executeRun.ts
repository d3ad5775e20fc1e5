import type { Readable } from 'node:stream';
import type { SimulationJobInput, SimulationOutcome } from '../simulations/createSimulationClient.ts';
import { type RunOptions, streamRun } from '../simulations/streamRun.ts';
import type { RunDependencies } from './RunDependencies.ts';

export type { RunOptions };

/**
 * Makes a job's run through the queue and a pool thread, streamed to the caller (simulations/streamRun.ts):
 * `settled` is awaited with what the run came to, before its last bytes go (a run that could not be
 * enqueued or answered is `rejected`).
 */
export const executeRun = (
  deps: RunDependencies,
  job: Omit<SimulationJobInput, 'format'>,
  options: RunOptions,
  settled: (ran: PromiseSettledResult<SimulationOutcome>) => Promise<void>,
): Promise<Buffer | Readable> =>
  streamRun(deps, job.simulationId, options, async (sink) => {
    const [ran] = await Promise.allSettled([deps.simulations.run({ ...job, format: options.format ?? 'json' }, sink)]);
    await settled(ran);
    if (ran.status === 'rejected') {
      throw ran.reason;
    }
    return ran.value;
  });
