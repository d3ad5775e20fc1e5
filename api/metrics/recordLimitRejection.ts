import type { Metrics } from './createMetrics.ts';

/**
 * Counts a simulation request refused by a limit, by its error code: `rate_limit_exceeded`,
 * `concurrency_limit_exceeded`, `interactions_per_request_exceeded`, `monthly_request_quota_exceeded`,
 * `monthly_interaction_quota_exceeded`.
 */
export const recordLimitRejection = (metrics: Metrics, code: string): void => {
  metrics.limitRejections.inc({ code });
};
