import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { limitKeys } from '../limits/limitKeys.ts';
import { limitScripts } from '../limits/limitScripts.ts';
import type { Services } from '../Services.ts';

/**
 * Hands back what an admitted request held. `giveBack` (a failed or timed-out run) also returns its
 * request and interactions to the quota; `charged` (a run cancelled after its first bytes) keeps the
 * request and that many interactions and returns the rest; a completed run keeps them all and only frees
 * its slot.
 */
export const releaseSimulation = async (
  services: Services,
  input: { accountId: string; simulationId: string; period: MonthlyPeriod; numInteractions: number; giveBack: boolean; charged?: number },
): Promise<void> => {
  const keys = limitKeys(services.redisPrefix, input.accountId, input.period.key);
  if (input.charged !== undefined) {
    await limitScripts(services.redis).bssRelease(keys.quota, keys.slots, input.numInteractions - input.charged, input.simulationId, 0);
  } else if (input.giveBack) {
    await limitScripts(services.redis).bssRelease(keys.quota, keys.slots, input.numInteractions, input.simulationId, 1);
  } else {
    await services.redis.zrem(keys.slots, input.simulationId);
  }
};
