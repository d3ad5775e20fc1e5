import { describeError } from '../../shared/errors/describeError.ts';
import { releaseSimulation } from './releaseSimulation.ts';
import type { Services } from '../Services.ts';
import type { SimulationOutcome } from './createSimulationClient.ts';
import { ledgerWriter } from './ledgerWriter.ts';
import type { AdmittedSimulation } from './recordAdmission.ts';

const toIso = (epochMs: number | null): string | null => (epochMs === null ? null : new Date(epochMs).toISOString());

/**
 * Settlement: the ledger row leaves `queued` for `completed`, `failed`, `timed_out` or `cancelled`, with the worker's
 * timings, and the limits get back what the run held: always its slot, and for a run that did not
 * complete its request and interactions too. Only the caller that moves the row out of `queued` hands
 * anything back, so settling twice (or racing the stale-run sweeper) never gives back twice.
 *
 * The write is idempotent and retried on a new connection when the link fails, an acknowledgement lost
 * after the commit included. Should a completed run's settlement still fail, the run is answered anyway:
 * the row then either says completed (counted and answered) or stays `queued` until the stale-run sweeper
 * gives it back (answered, not counted). Never counted without an answer.
 */
export const settleSimulation = async (services: Services, admitted: AdmittedSimulation, outcome: SimulationOutcome): Promise<void> => {
  const { admission } = admitted;
  const finishing = ledgerWriter(services.pool).finish({
    id: admitted.simulationId,
    status: outcome.status,
    startedAt: outcome.status === 'timed_out' ? null : toIso(outcome.startedAt),
    finishedAt: new Date(outcome.finishedAt).toISOString(),
    computeMs: outcome.status === 'completed' ? outcome.computeMs : null,
    chargedInteractions: outcome.status === 'completed' ? admitted.numInteractions : outcome.status === 'cancelled' ? outcome.records : null,
  });
  if (outcome.status === 'completed') {
    // A completed run keeps its quota whoever settles it, so its slot is freed alongside the ledger write.
    const [settled] = await Promise.allSettled([finishing, releaseSimulation(services, { ...admission, giveBack: false })]);
    if (settled.status === 'rejected') {
      services.logger.error({ simulation_id: admitted.simulationId, error: describeError(settled.reason) }, 'could not settle a completed simulation; the stale-run sweeper will');
      return;
    }
  } else if (await finishing) {
    const charged = outcome.status === 'cancelled' ? outcome.records : null;
    await releaseSimulation(services, { ...admission, giveBack: true, ...(charged === null ? {} : { charged }) });
  }
  admission.settled = true;
};
