import { randomUUID } from 'node:crypto';
import type { PlanRow } from '../../shared/db/queries/plans.ts';
import type { AppError } from '../../shared/errors/AppError.ts';
import { concurrencyLimitExceeded, rateLimitExceeded } from '../../shared/errors/errors.ts';
import { monthlyPeriod, type MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { LimitDependencies } from './LimitDependencies.ts';
import { limitKeys } from './limitKeys.ts';
import { LIMIT_OUTCOMES } from './createLimitScripts.ts';

const WINDOW_US = 60_000_000;

interface ReplayAdmission {
  readonly headers: Readonly<Record<string, string>>;
  readonly period: MonthlyPeriod;
  /** Set when a slot was taken: the replay's own id, the slot's member and the job's id. */
  readonly replayId?: string;
  readonly refusal?: AppError;
}

/**
 * The rate limiter and a concurrency slot for a replay (history or idempotent), in one round trip, and
 * nothing of the monthly quota. `wantsSlot` false (the run cannot be replayed, or not by this plan) still
 * counts the request in the rate window, as every admitted attempt of POST /v1/simulations does, so
 * probing ids costs rate like anything else.
 */
export const admitReplay = async (
  deps: LimitDependencies,
  input: { accountId: string; plan: PlanRow; requestId: string; wantsSlot: boolean },
): Promise<ReplayAdmission> => {
  const period = monthlyPeriod(deps.now());
  const keys = limitKeys(deps.redisPrefix, input.accountId, period.key);
  const replayId = randomUUID();
  const { plan } = input;
  const [outcome = -1, remaining = 0, reset = 0, a = 0] = await deps.limitScripts.bssAdmitReplay(
    keys.rateWindow,
    keys.slots,
    plan.requests_per_minute,
    WINDOW_US,
    `${input.requestId}:${replayId}`,
    input.wantsSlot ? 1 : 0,
    plan.max_concurrent_simulations,
    replayId,
    deps.config.simulationTimeoutMs + 5000,
  );
  const headers = {
    'RateLimit-Policy': `"rpm";q=${plan.requests_per_minute};w=60`,
    RateLimit: `"rpm";r=${remaining};t=${reset}`,
  };
  switch (outcome) {
    case LIMIT_OUTCOMES.admitted:
      return { headers, period, replayId };
    case LIMIT_OUTCOMES.rateCounted:
      return { headers, period };
    case LIMIT_OUTCOMES.rateLimited:
      return { headers, period, refusal: rateLimitExceeded(plan.requests_per_minute, a) };
    case LIMIT_OUTCOMES.concurrencyFull:
      return { headers, period, refusal: concurrencyLimitExceeded(plan.max_concurrent_simulations, a) };
    default:
      throw new Error(`unexpected replay admission outcome ${outcome}`);
  }
};
