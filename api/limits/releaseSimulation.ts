import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { limitKeys } from './limitKeys.ts';
import type { LimitDependencies } from './LimitDependencies.ts';

/**
 * Hands back what an admitted request held, in one Redis call. `freeSlot` frees its concurrency slot
 * (absent: yes). `giveBack` (a failed or timed-out run) also returns its request and interactions to the
 * quota; `charged` (a run cancelled after its first bytes) keeps the request and that many interactions
 * and returns the rest; a completed run keeps them all and only frees its slot. Called by a run's lease
 * (createRunLease.ts) and by the stale-run sweeper, each once per run.
 */
export const releaseSimulation = async (
  deps: LimitDependencies,
  input: {
    accountId: string;
    simulationId: string;
    period: MonthlyPeriod;
    numInteractions: number;
    freeSlot?: boolean;
    giveBack: boolean;
    charged?: number;
  },
): Promise<void> => {
  const keys = limitKeys(deps.redisPrefix, input.accountId, input.period.key);
  const slot = input.freeSlot === false ? undefined : input.simulationId;
  if (input.charged !== undefined) {
    await deps.limitScripts.release(keys, { requests: 0, interactions: input.numInteractions - input.charged, slot });
  } else if (input.giveBack) {
    await deps.limitScripts.release(keys, { requests: 1, interactions: input.numInteractions, slot });
  } else if (slot !== undefined) {
    await deps.redis.zrem(keys.slots, slot);
  }
};
