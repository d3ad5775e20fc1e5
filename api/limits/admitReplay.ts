import { randomUUID } from 'node:crypto';
import type { PlanRow } from '../../shared/db/queries/plans.ts';
import type { AppError } from '../../shared/errors/AppError.ts';
import { concurrencyLimitExceeded, rateLimitExceeded } from '../../shared/errors/errors.ts';
import { monthlyPeriod, type MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { LimitDependencies } from './LimitDependencies.ts';
import { limitKeys } from './limitKeys.ts';

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
  const answer = await deps.limitScripts.admitReplay(keys, {
    rpm: plan.requests_per_minute,
    windowUs: WINDOW_US,
    requestId: `${input.requestId}:${replayId}`,
    takeSlot: input.wantsSlot,
    maxConcurrent: plan.max_concurrent_simulations,
    runId: replayId,
    leaseMs: deps.config.simulationTimeoutMs + 5000,
  });
  const headers = {
    'RateLimit-Policy': `"rpm";q=${plan.requests_per_minute};w=60`,
    RateLimit: `"rpm";r=${answer.remaining};t=${answer.resetS}`,
  };
  switch (answer.outcome) {
    case 'admitted':
      return { headers, period, replayId };
    case 'rateCounted':
      return { headers, period };
    case 'rateLimited':
      return { headers, period, refusal: rateLimitExceeded(plan.requests_per_minute, answer.value) };
    case 'concurrencyFull':
      return { headers, period, refusal: concurrencyLimitExceeded(plan.max_concurrent_simulations, answer.value) };
    default:
      throw new Error(`unexpected replay admission outcome ${answer.outcome}`);
  }
};
