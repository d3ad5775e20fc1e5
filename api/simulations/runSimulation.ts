import type { PresetDefinition } from '../../shared/engine/index.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { internalError, simulationTimeout } from '../../shared/errors/errors.ts';
import type { Principal } from '../AppState.ts';
import type { SimulationAdmission } from '../limits/admitSimulationRequest.ts';
import type { Services } from '../Services.ts';
import { type AdmittedSimulation, recordAdmission } from './recordAdmission.ts';
import { drawSeed } from './drawSeed.ts';
import { settleSimulation } from './settleSimulation.ts';

/** A validated request, names resolved: the canonical preset, the profile to use, the seed if one was given. */
export interface SimulationRequest {
  readonly preset: PresetDefinition;
  readonly profile: string;
  readonly seed: number | undefined;
  readonly numInteractions: number;
}

/**
 * Runs one simulation the limits admitted: write the ledger row while the job is enqueued and run
 * (neither waits on the other: the row is a record, the worker never reads it), then settle the row.
 * Returns the Simulation result as the bytes the worker wrote, never parsed here.
 */
export const runSimulation = async (
  services: Services,
  principal: Principal,
  request: SimulationRequest,
  admission: SimulationAdmission,
): Promise<Buffer> => {
  services.simulations.assertAvailable();
  // The deadline covers everything after admission: queueing and the run.
  const deadline = Date.now() + services.config.simulationTimeoutMs;
  const admitted: AdmittedSimulation = {
    simulationId: admission.simulationId,
    preset: request.preset.name,
    profile: request.profile,
    seed: request.seed ?? drawSeed(),
    numInteractions: request.numInteractions,
    principal,
    periodStart: admission.period.start.toISOString(),
    admission,
  };

  // Both settle before anything else happens, so a row is never settled before it exists.
  const [recorded, ran] = await Promise.allSettled([recordAdmission(services, admitted), services.simulations.run({ ...admitted, deadline })]);
  if (recorded.status === 'rejected') {
    // A run the ledger does not know of is not handed out: it could not be counted.
    throw recorded.reason;
  }
  if (ran.status === 'rejected') {
    await settleSimulation(services, admitted, { status: 'failed', startedAt: null, finishedAt: Date.now() }).catch((error: unknown) =>
      services.logger.error({ simulation_id: admitted.simulationId, error: describeError(error) }, 'could not settle a simulation'),
    );
    throw ran.reason;
  }
  const outcome = ran.value;
  await settleSimulation(services, admitted, outcome);

  switch (outcome.status) {
    case 'completed':
      return outcome.body;
    case 'timed_out':
      throw simulationTimeout(services.config.simulationTimeoutMs);
    case 'failed':
      throw internalError();
  }
};
