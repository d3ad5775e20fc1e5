import type { PlanRow } from '../../../shared/db/queries/plans.ts';
import type { UsageTotals } from '../../../shared/db/queries/usage.ts';
import type { MonthlyPeriod } from '../../../shared/limits/monthlyPeriod.ts';
import type { UsageResponse } from './schema.ts';

export const presentUsage = (plan: PlanRow, period: MonthlyPeriod, usage: UsageTotals): UsageResponse => ({
  plan: {
    name: plan.name,
    monthly_requests: plan.monthly_requests,
    monthly_interactions: plan.monthly_interactions,
    max_interactions_per_request: plan.max_interactions_per_request,
    requests_per_minute: plan.requests_per_minute,
    max_concurrent_simulations: plan.max_concurrent_simulations,
  },
  period: { start: period.start.toISOString(), end: period.end.toISOString() },
  usage: { requests: usage.requests, interactions: usage.interactions },
  // Never negative: a plan downgrade mid-month can leave usage above the new limits.
  remaining: {
    requests: Math.max(0, plan.monthly_requests - usage.requests),
    interactions: Math.max(0, plan.monthly_interactions - usage.interactions),
  },
});
