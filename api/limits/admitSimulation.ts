import { randomUUID } from 'node:crypto';
import type { AppError } from '../../shared/errors/AppError.ts';
import {
  concurrencyLimitExceeded,
  monthlyInteractionQuotaExceeded,
  monthlyRequestQuotaExceeded,
  rateLimitExceeded,
} from '../../shared/errors/errors.ts';
import type { PlanRow } from '../../shared/db/queries/plans.ts';
import { listRecentAdmissions, sumReservedUsage } from '../../shared/db/queries/usage.ts';
import { authVersionKey } from '../../shared/auth/authVersion.ts';
import { monthlyPeriod, type MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { Services } from '../Services.ts';
import { limitKeys } from './limitKeys.ts';
import { LIMIT_OUTCOMES } from './createLimitScripts.ts';

const WINDOW_S = 60;
const WINDOW_US = WINDOW_S * 1_000_000;
// Quota counters outlive their month by a day so a request racing the month's end still finds them.
const QUOTA_GRACE_S = 86_400;

export interface AdmissionInput {
  readonly accountId: string;
  readonly plan: PlanRow;
  readonly requestId: string;
  /** Absent when the request was refused before quota (invalid body, per-request maximum): only the rate limiter counts it. */
  readonly numInteractions?: number;
  /** The version a cached principal was loaded under (Principal.authVersion): the script confirms it first. */
  readonly authVersion?: string;
}

export interface Admission {
  /** The RateLimit fields every answer past authentication carries. */
  readonly headers: Readonly<Record<string, string>>;
  /** Set when quota and a slot were taken: the simulation id they are held under. */
  readonly simulationId?: string;
  readonly period: MonthlyPeriod;
  /** Set when the request is refused. */
  readonly refusal?: AppError;
  /** Set when the cached principal is out of date: nothing was taken; reload it and ask again. */
  readonly principalStale?: boolean;
}

const rateHeaders = (limit: number, remaining: number, resetSeconds: number): Record<string, string> => ({
  'RateLimit-Policy': `"rpm";q=${limit};w=60`,
  RateLimit: `"rpm";r=${remaining};t=${resetSeconds}`,
});

/**
 * Runs the admission script; on a lost quota counter (Redis restarted or flushed, or a new month) it
 * rebuilds the counter and the rate window from the ledger and asks again (nothing was counted yet).
 */
export const admitSimulation = async (services: Services, input: AdmissionInput): Promise<Admission> => {
  // One reading of the domain clock decides both the period and how long its counter lives.
  const now = services.now();
  const period = monthlyPeriod(now);
  const keys = limitKeys(services.redisPrefix, input.accountId, period.key);
  const scripts = services.limitScripts;
  const simulationId = randomUUID();
  const quotaTtl = Math.max(Math.ceil((period.end.getTime() - now.getTime()) / 1000) + QUOTA_GRACE_S, 60);
  const { plan } = input;
  const wantsQuota = input.numInteractions !== undefined;

  const ask = () =>
    scripts.bssAdmit(
      keys.rateWindow,
      keys.quota,
      keys.slots,
      authVersionKey(services.redisPrefix, input.accountId),
      plan.requests_per_minute,
      WINDOW_US,
      simulationId,
      wantsQuota ? 1 : 0,
      plan.monthly_requests,
      plan.monthly_interactions,
      input.numInteractions ?? 0,
      plan.max_concurrent_simulations,
      services.config.simulationTimeoutMs + 5000,
      quotaTtl,
      input.authVersion ?? '',
    );

  let [outcome = -1, remaining = 0, reset = 0, a = 0] = await ask();
  if (outcome === LIMIT_OUTCOMES.quotaNotLoaded) {
    const [reserved, recent] = await Promise.all([
      sumReservedUsage(services.pool, input.accountId, period.start),
      listRecentAdmissions(services.pool, input.accountId, WINDOW_S),
    ]);
    await scripts.bssSeedLimits(
      keys.quota,
      keys.rateWindow,
      reserved.requests,
      reserved.interactions,
      quotaTtl,
      WINDOW_US,
      ...recent.flatMap((row) => [row.admitted_us, row.id]),
    );
    [outcome = -1, remaining = 0, reset = 0, a = 0] = await ask();
  }
  const headers = rateHeaders(plan.requests_per_minute, remaining, reset);
  const resetsAt = period.end.toISOString();
  switch (outcome) {
    case LIMIT_OUTCOMES.admitted:
      return { headers, period, simulationId };
    case LIMIT_OUTCOMES.rateCounted:
      return { headers, period };
    case LIMIT_OUTCOMES.principalStale:
      return { headers, period, principalStale: true };
    case LIMIT_OUTCOMES.rateLimited:
      return { headers, period, refusal: rateLimitExceeded(plan.requests_per_minute, a) };
    case LIMIT_OUTCOMES.monthlyRequestsUsedUp:
      return { headers, period, refusal: monthlyRequestQuotaExceeded(plan.monthly_requests, a, resetsAt) };
    case LIMIT_OUTCOMES.monthlyInteractionsExceeded:
      return {
        headers,
        period,
        refusal: monthlyInteractionQuotaExceeded(plan.monthly_interactions, a, input.numInteractions ?? 0, resetsAt),
      };
    case LIMIT_OUTCOMES.concurrencyFull:
      return { headers, period, refusal: concurrencyLimitExceeded(plan.max_concurrent_simulations, a) };
    default:
      throw new Error(`unexpected admission outcome ${outcome}`);
  }
};
