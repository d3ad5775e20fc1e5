import { expireStaleSimulations } from '../../shared/db/queries/usage.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { monthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { Services } from '../Services.ts';
import { releaseSimulation } from './releaseSimulation.ts';

// Past every deadline by a wide margin: only a run whose API process died while waiting is this old.
const STALE_MARGIN_MS = 60_000;

/**
 * Gives back the reservations of runs whose API process died mid-wait. Safe on every API process at
 * once: the ledger's `status = 'queued'` guard settles each row exactly once.
 */
export const sweepStaleSimulations = async (services: Services): Promise<number> => {
  const stale = await expireStaleSimulations(services.pool, services.config.simulationTimeoutMs + STALE_MARGIN_MS);
  for (const row of stale) {
    await releaseSimulation(services, {
      accountId: row.account_id,
      simulationId: row.id,
      period: monthlyPeriod(new Date(row.period_start)),
      numInteractions: row.num_interactions,
      giveBack: true,
    });
  }
  return stale.length;
};

export const startStaleSweeper = (services: Services, intervalMs = 30_000): (() => void) => {
  const timer = setInterval(() => {
    sweepStaleSimulations(services).catch((error: unknown) => {
      services.logger.warn({ error: describeError(error) }, 'stale simulation sweep failed');
    });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
};
