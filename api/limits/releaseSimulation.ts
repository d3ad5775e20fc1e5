import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { limitKeys } from './limitKeys.ts';
import type { LimitDependencies } from './LimitDependencies.ts';

/**
 * Gives back what a run that never settled held, in one Redis call (release.lua): its slot, its request
 * and its interactions. Called once per run by the stale-run sweeper (api/runs/sweepStaleSimulations.ts),
 * for a ledger row an earlier version of the service left `queued`; a run of this version settles
 * through its owner (api/runs/createRun.ts) or, when its process died, through settle.lua.
 */
export const releaseSimulation = async (
  deps: LimitDependencies,
  input: { readonly accountId: string; readonly simulationId: string; readonly period: MonthlyPeriod; readonly numInteractions: number },
): Promise<void> => {
  const keys = limitKeys(deps.redisPrefix, input.accountId, input.period.key);
  await deps.limitScripts.release(keys, { requests: 1, interactions: input.numInteractions, slot: input.simulationId });
};
