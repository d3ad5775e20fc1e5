import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { RunSpecification } from '../../shared/runs/runSpecification.ts';
import { executeRun, type RunOptions } from './executeRun.ts';
import type { RunDependencies } from './RunDependencies.ts';

/**
 * Makes a recorded run's body again, holding nothing (no slot, no quota, no row): what a replay does within
 * its own admitted run when it must measure its body before answering (api/bulk/serveRecords.ts). Its job
 * has an id of its own, so it never meets the admitted run's.
 */
export const remakeRun = async (deps: RunDependencies, spec: RunSpecification, options: RunOptions = {}): Promise<Buffer | Readable> => {
  deps.simulations.assertAvailable();
  return executeRun(deps, { ...spec, runId: randomUUID(), deadline: Date.now() + deps.config.simulationTimeoutMs }, options, async () => {});
};
