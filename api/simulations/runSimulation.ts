import type { Principal } from '../AppState.ts';
import type { SimulationAdmission } from './SimulationAdmission.ts';
import type { Services } from '../Services.ts';
import { drawSeed } from './drawSeed.ts';
import { recordOf, type RunSpecification } from '../../shared/runs/runSpecification.ts';
import { internalError } from '../../shared/errors/errors.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { replaySimulation } from './replaySimulation.ts';
import type { SimulationRequest } from './SimulationRequest.ts';
import { type RunSimulationOptions, type SimulationResponse, streamRun } from './streamRun.ts';

/**
 * Runs one simulation the limits admitted (admit.lua recorded it in flight, in Redis), then settles it
 * through the admission's lease (createRunLease.ts), which owns the run's slot, quota and ledger fate and
 * writes the run's one ledger row. Resolves with the first bytes: a small run's whole body, or a large
 * run's stream once its first chunk is in. Settlement is awaited before the last bytes go out, so a client
 * that read a whole body finds the run counted. A replay (`request.replayOf`) goes to replaySimulation: no
 * ledger row, no quota; it frees the slot of its admission, if it has one, once it has run.
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
  // Its client left before it began: it is not run (the lease gave back what admission took).
  admission.lease.begin();
  const { replayOf: _replayOf, ...fields } = request;
  const admitted: RunSpecification = { ...fields, simulationId: admission.simulationId, seed: admission.seed ?? request.seed ?? drawSeed() };

  return streamRun(services, recordOf(admitted), options, async (sink) => {
    const [ran] = await Promise.allSettled([services.simulations.run({ ...admitted, deadline, format: options.format ?? 'json' }, sink)]);
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
