import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { limitKeys } from '../limits/limitKeys.ts';
import { limitScripts } from '../limits/limitScripts.ts';
import type { Services } from '../Services.ts';

/**
 * Hands back what an admitted request held. `giveBack` (a failed or timed-out run) also returns its
 * request and interactions to the quota; a completed run keeps them and only frees its slot.
 */
export const releaseSimulation = async (
  services: Services,
  input: { accountId: string; simulationId: string; period: MonthlyPeriod; numInteractions: number; giveBack: boolean },
): Promise<void> => {
  const keys = limitKeys(services.redisPrefix, input.accountId, input.period.key);
  if (input.giveBack) {
    await limitScripts(services.redis).bssRelease(keys.quota, keys.slots, input.numInteractions, input.simulationId);
  } else {
    await services.redis.zrem(keys.slots, input.simulationId);
  }
};
