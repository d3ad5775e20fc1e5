import { randomUUID } from 'node:crypto';
import { internalError } from '../../shared/errors/errors.ts';
import type { SimulationAdmission } from './SimulationAdmission.ts';
import type { Services } from '../Services.ts';
import type { SimulationOutcome } from './createSimulationClient.ts';
import type { SimulationRequest } from './SimulationRequest.ts';
import { recordOf, type RunSpecification } from '../../shared/runs/runSpecification.ts';
import { type RunSimulationOptions, type SimulationResponse, streamRun } from './streamRun.ts';

/**
 * Makes a recorded run again through the same queue and pool as a new one, in any format, streamed the
 * same way, so the body is the first run's (only metadata.compute_ms may differ): a history replay
 * (GET /v1/simulations/{id}/records) or an idempotent retry of POST /v1/simulations.
 *
 * The body and the Simulation-Id header carry the recorded simulation id; the job runs under an id of its
 * own (`runId`), because the first run's job may still be in BullMQ and several replays of one run may be
 * in flight at once: a history replay's admission id (the slot's member), else a fresh one. Nothing is
 * written to the ledger and no quota is taken; a history replay's slot is freed once the run has ended.
 */
export const replaySimulation = async (
  services: Services,
  request: SimulationRequest,
  replayOf: { readonly simulationId: string; readonly serviceVersion: string },
  admission: SimulationAdmission | undefined,
  options: RunSimulationOptions,
): Promise<SimulationResponse> => {
  // A replay's lease holds a slot and nothing else: freed once, by whoever asks first (here, or holdAdmission).
  const release = async (): Promise<void> => {
    await admission?.lease.release();
  };
  const { seed } = request;
  if (seed === undefined) {
    // A recorded run always has its seed; a replay without one would not be that run.
    await release();
    throw internalError();
  }
  try {
    services.simulations.assertAvailable();
  } catch (error) {
    await release();
    throw error;
  }
  const deadline = Date.now() + services.config.simulationTimeoutMs;
  const { replayOf: _replayOf, ...fields } = request;
  const spec: RunSpecification = { ...fields, simulationId: replayOf.simulationId, seed, serviceVersion: replayOf.serviceVersion };
  return streamRun(
    services,
    recordOf(spec),
    options,
    async (sink): Promise<SimulationOutcome> => {
      try {
        return await services.simulations.run({ ...spec, runId: admission?.simulationId ?? randomUUID(), deadline, format: options.format ?? 'json' }, sink);
      } finally {
        // The run is over: its slot is freed now, not when the last bytes have left (the stream may trail).
        await release();
      }
    },
  );
};
