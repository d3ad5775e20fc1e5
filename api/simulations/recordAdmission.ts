import type { PresetName } from '../../shared/engine/index.ts';
import type { Scenario } from '../../shared/engine/scenario.ts';
import type { Principal } from '../AppState.ts';
import type { SimulationAdmission } from './SimulationAdmission.ts';

export interface SimulationRun {
  readonly simulationId: string;
  readonly preset: PresetName;
  readonly profile: string;
  readonly seed: number;
  readonly numInteractions: number;
  readonly scenario?: Scenario | undefined;
}

export interface AdmittedSimulation extends SimulationRun {
  readonly principal: Principal;
  /** ISO timestamp of the monthly period the run counts against: the one the limits reserved in. */
  readonly periodStart: string;
  /** The engine service_version the run uses, kept in the ledger so a replay runs it again. */
  readonly serviceVersion: string;
  /** What the limits took for this run; its lease writes the row and settles it. */
  readonly admission: SimulationAdmission;
}

/**
 * The admitted request's ledger row (status `queued`): the durable record monthly usage is counted from.
 * Written through the run's lease, in a group commit with the other requests of the moment, retried on a
 * lost connection.
 */
export const recordAdmission = async (admitted: AdmittedSimulation): Promise<void> => {
  const { principal } = admitted;
  await admitted.admission.lease.record({
    id: admitted.simulationId,
    accountId: principal.accountId,
    apiKeyId: principal.via.kind === 'api_key' ? principal.via.apiKeyId : null,
    sessionId: principal.via.kind === 'session' ? principal.via.sessionId : null,
    preset: admitted.preset,
    profile: admitted.profile,
    seed: admitted.seed,
    numInteractions: admitted.numInteractions,
    periodStart: admitted.periodStart,
    serviceVersion: admitted.serviceVersion,
    scenario: admitted.scenario,
  });
};
