import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { limitKeys } from '../limits/limitKeys.ts';
import type { Services } from '../Services.ts';

/**
 * Hands back what an admitted request held, in one Redis call. `freeSlot` frees its concurrency slot
 * (absent: yes). `giveBack` (a failed or timed-out run) also returns its request and interactions to the
 * quota; `charged` (a run cancelled after its first bytes) keeps the request and that many interactions
 * and returns the rest; a completed run keeps them all and only frees its slot. Called by a run's lease
 * (createRunLease.ts) and by the stale-run sweeper, each once per run.
 */
export const releaseSimulation = async (
  services: Services,
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
  const keys = limitKeys(services.redisPrefix, input.accountId, input.period.key);
  const slot = input.freeSlot === false ? '' : input.simulationId;
  if (input.charged !== undefined) {
    await services.limitScripts.bssRelease(keys.quota, keys.slots, input.numInteractions - input.charged, slot, 0);
  } else if (input.giveBack) {
    await services.limitScripts.bssRelease(keys.quota, keys.slots, input.numInteractions, slot, 1);
  } else if (slot !== '') {
    await services.redis.zrem(keys.slots, slot);
  }
};
