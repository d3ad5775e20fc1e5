import { insertSimulation } from '../../shared/db/queries/simulations.ts';
import type { PresetName } from '../../shared/engine/index.ts';
import type { Principal } from '../AppState.ts';
import type { Services } from '../Services.ts';
import { startOfUtcMonth } from './startOfUtcMonth.ts';

export interface SimulationRun {
  readonly simulationId: string;
  readonly preset: PresetName;
  readonly profile: string;
  readonly seed: number;
  readonly numInteractions: number;
}

export interface AdmittedSimulation extends SimulationRun {
  readonly principal: Principal;
  /** ISO timestamp of the monthly period the run counts against. */
  readonly periodStart: string;
}

/**
 * Admission: the point after which a request is counted, and where its monthly period is fixed.
 *
 * Seam for the limits (issue 6): the per-request maximum (403), the monthly request and interaction
 * quotas (403) and the concurrency slot (429) are checked here, in that order; a refused request throws
 * and leaves no ledger row. Whatever admission takes, settleSimulation gives back.
 */
export const admitSimulation = async (services: Services, principal: Principal, run: SimulationRun): Promise<AdmittedSimulation> => ({
  ...run,
  principal,
  periodStart: startOfUtcMonth(services.now()).toISOString(),
});

/** The admitted request's ledger row (status `queued`): the durable record monthly usage is counted from. */
export const recordAdmission = async (services: Services, admitted: AdmittedSimulation): Promise<void> => {
  const { principal } = admitted;
  await insertSimulation(services.pool, {
    id: admitted.simulationId,
    accountId: principal.accountId,
    apiKeyId: principal.via.kind === 'api_key' ? principal.via.apiKeyId : null,
    sessionId: principal.via.kind === 'session' ? principal.via.sessionId : null,
    preset: admitted.preset,
    profile: admitted.profile,
    seed: admitted.seed,
    numInteractions: admitted.numInteractions,
    periodStart: admitted.periodStart,
  });
};
