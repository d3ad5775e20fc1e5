import type { Principal } from '../AppState.ts';
import type { SimulationAdmission } from './SimulationAdmission.ts';
import type { Services } from '../Services.ts';
import { drawSeed } from './drawSeed.ts';
import { internalError } from '../../shared/errors/errors.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { type AdmittedSimulation, recordAdmission } from './recordAdmission.ts';
import { replaySimulation } from './replaySimulation.ts';
import type { SimulationRequest } from './SimulationRequest.ts';
import { type RunSimulationOptions, type SimulationIdentity, type SimulationResponse, streamRun } from './streamRun.ts';

/**
 * Runs one simulation the limits admitted: write the ledger row while the job is enqueued and run
 * (neither waits on the other: the row is a record, the worker never reads it), then settle the row,
 * both through the admission's lease (createRunLease.ts), which owns the run's slot and ledger fate.
 * Resolves with the first bytes: a small run's whole body, or a large run's stream once its first chunk
 * is in. Settlement is awaited before the last bytes go out, so a client that read a whole body finds the
 * run counted. A replay (`request.replayOf`) goes to replaySimulation: no ledger row, no quota; it frees
 * the slot of its admission, if it has one, once it has run.
 */
export const runSimulation = async (
  services: Services,
  principal: Principal,
  request: SimulationRequest,
  admission: SimulationAdmission | undefined,
  options: RunSimulationOptions = {},
): Promise<SimulationResponse> => {
  if (request.replayOf !== undefined) {
    return replaySimulation(services, request, request.replayOf, admission, options);
  }
  if (admission === undefined) {
    // Only a replay runs without an admission: a new run is always counted.
    throw internalError();
  }
  services.simulations.assertAvailable();
  // The deadline covers everything after admission: queueing and the run.
  const deadline = Date.now() + services.config.simulationTimeoutMs;
  const admitted: AdmittedSimulation = {
    simulationId: admission.simulationId,
    preset: request.preset.name,
    profile: request.profile,
    seed: request.seed ?? drawSeed(),
    numInteractions: request.numInteractions,
    scenario: request.scenario,
    principal,
    periodStart: admission.period.start.toISOString(),
    serviceVersion: request.serviceVersion,
    admission,
  };
  const identity: SimulationIdentity = {
    simulationId: admitted.simulationId,
    preset: admitted.preset,
    profile: admitted.profile,
    seed: admitted.seed,
    engineVersion: request.serviceVersion,
  };

  return streamRun(services, identity, options, async (sink) => {
    // Both settle before anything else happens, so a row is never settled before it exists.
    const [recorded, ran] = await Promise.allSettled([
      recordAdmission(admitted),
      services.simulations.run({ ...admitted, serviceVersion: request.serviceVersion, deadline, format: options.format ?? 'json' }, sink),
    ]);
    if (recorded.status === 'rejected') {
      // A run the ledger does not know of is not handed out: it could not be counted.
      throw recorded.reason;
    }
    if (ran.status === 'rejected') {
      await admission.lease.settle({ status: 'failed', startedAt: null, finishedAt: Date.now() }).catch((error: unknown) =>
        services.logger.error({ simulation_id: admitted.simulationId, error: describeError(error) }, 'could not settle a simulation'),
      );
      throw ran.reason;
    }
    const outcome = ran.value;
    await admission.lease.settle(outcome);
    return outcome;
  });
};
