import { finishSimulation } from '../../shared/db/queries/simulations.ts';
import type { Services } from '../Services.ts';
import type { AdmittedSimulation } from './admitSimulation.ts';
import type { SimulationOutcome } from './createSimulationClient.ts';

const toIso = (epochMs: number | null): string | null => (epochMs === null ? null : new Date(epochMs).toISOString());

/**
 * Settlement: the ledger row leaves `queued` for `completed`, `failed` or `timed_out`, with the worker's
 * timings. Only completed rows count as usage, so a failed or timed-out run costs the caller nothing.
 *
 * Seam for the limits (issue 6): release the concurrency slot taken at admission, and give back what a run
 * that did not complete had reserved.
 */
export const settleSimulation = async (services: Services, admitted: AdmittedSimulation, outcome: SimulationOutcome): Promise<void> => {
  await finishSimulation(services.pool, {
    id: admitted.simulationId,
    status: outcome.status,
    startedAt: outcome.status === 'timed_out' ? null : toIso(outcome.startedAt),
    finishedAt: new Date(outcome.finishedAt).toISOString(),
    computeMs: outcome.status === 'completed' ? outcome.computeMs : null,
  });
};
