import { finishSimulation } from '../../shared/db/queries/simulations.ts';
import { releaseSimulation } from '../limits/admitSimulation.ts';
import type { Services } from '../Services.ts';
import type { AdmittedSimulation } from './recordAdmission.ts';
import type { SimulationOutcome } from './createSimulationClient.ts';

const toIso = (epochMs: number | null): string | null => (epochMs === null ? null : new Date(epochMs).toISOString());

/**
 * Settlement: the ledger row leaves `queued` for `completed`, `failed` or `timed_out`, with the worker's
 * timings, and the limits get back what the run held: always its slot, and for a run that did not
 * complete its request and interactions too. Only the caller that moves the row out of `queued` hands
 * anything back, so settling twice (or racing the stale-run sweeper) never gives back twice.
 */
export const settleSimulation = async (services: Services, admitted: AdmittedSimulation, outcome: SimulationOutcome): Promise<void> => {
  const { admission } = admitted;
  const finishing = finishSimulation(services.pool, {
    id: admitted.simulationId,
    status: outcome.status,
    startedAt: outcome.status === 'timed_out' ? null : toIso(outcome.startedAt),
    finishedAt: new Date(outcome.finishedAt).toISOString(),
    computeMs: outcome.status === 'completed' ? outcome.computeMs : null,
  });
  if (outcome.status === 'completed') {
    // A completed run keeps its quota whoever settles it, so its slot is freed alongside the ledger write.
    await Promise.all([finishing, releaseSimulation(services, { ...admission, giveBack: false })]);
  } else if ((await finishing) !== null) {
    await releaseSimulation(services, { ...admission, giveBack: true });
  }
  admission.settled = true;
};
