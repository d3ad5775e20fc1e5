import { randomUUID } from 'node:crypto';
import type { PlanRow } from '../../shared/db/queries/plans.ts';
import type { AppError } from '../../shared/errors/AppError.ts';
import { concurrencyLimitExceeded, rateLimitExceeded } from '../../shared/errors/errors.ts';
import { monthlyPeriod, type MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { LimitDependencies } from './LimitDependencies.ts';
import { limitKeys } from './limitKeys.ts';
import { RATE_WINDOW_US, type RateLimitState, slotLeaseMs } from './limitPolicy.ts';

export interface ReplayAdmission {
  /** The rate window as this request left it (limitPolicy.ts). */
  readonly rateLimit: RateLimitState;
  readonly period: MonthlyPeriod;
  /** Set when a slot was taken: the replay's run id, the slot's member and its job's id. */
  readonly runId?: string;
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
  const runId = randomUUID();
  const { plan } = input;
  const answer = await deps.limitScripts.admitReplay(keys, {
    rpm: plan.requests_per_minute,
    windowUs: RATE_WINDOW_US,
    requestId: `${input.requestId}:${runId}`,
    takeSlot: input.wantsSlot,
    maxConcurrent: plan.max_concurrent_simulations,
    runId,
    leaseMs: slotLeaseMs(deps.config),
  });
  const rateLimit = { limit: plan.requests_per_minute, remaining: answer.remaining, resetS: answer.resetS };
  switch (answer.outcome) {
    case 'admitted':
      return { rateLimit, period, runId };
    case 'rateCounted':
      return { rateLimit, period };
    case 'rateLimited':
      return { rateLimit, period, refusal: rateLimitExceeded(plan.requests_per_minute, answer.value) };
    case 'concurrencyFull':
      return { rateLimit, period, refusal: concurrencyLimitExceeded(plan.max_concurrent_simulations, answer.value) };
    default:
      throw new Error(`unexpected replay admission outcome ${answer.outcome}`);
  }
};
