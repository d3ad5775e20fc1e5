import type { Config } from '../../shared/config.ts';
import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';

/**
 * The limits' policy in one place (docs/limits.md, docs/fair-use.md): windows, leases and margins, how
 * long Redis keeps what they count, what the RateLimit fields say and which refusals are metered. The
 * scripts (lua/) and the functions beside this file apply it; none of them holds a number of its own.
 */

/** The rate limiter's window: a plan's requests_per_minute, sliding. */
export const RATE_WINDOW_S = 60;
export const RATE_WINDOW_US = RATE_WINDOW_S * 1_000_000;

/** Creations and rolls of API keys allowed per account in any hour (docs/api.md, key rolls). */
export const KEY_CHANGES_PER_HOUR = 20;
export const KEY_CHANGE_WINDOW_US = 3600 * 1_000_000;

/**
 * A concurrency slot is a lease that ends this long after the run's deadline, so an API process that
 * dies holds nobody's slot for longer (docs/architecture.md, limits and the ledger).
 */
const LEASE_MARGIN_MS = 5000;

/** How long a slot taken now is held at most. */
export const slotLeaseMs = (config: Pick<Config, 'simulationTimeoutMs'>): number => config.simulationTimeoutMs + LEASE_MARGIN_MS;

/** Quota counters and in-flight hashes outlive their month by a day, so a request racing its end still finds them. */
const PERIOD_GRACE_S = 86_400;

/** Seconds a period's quota counter and its in-flight hash live from `nowMs` (at least a minute). */
export const periodTtlSeconds = (period: MonthlyPeriod, nowMs: number): number => Math.max(Math.ceil((period.end.getTime() - nowMs) / 1000) + PERIOD_GRACE_S, 60);

/** How often a process drops its settled runs' entries and puts back those Redis lost (createLeaseKeeper.ts). */
export const KEEPER_INTERVAL_MS = 250;

/**
 * After Redis lost an account's data, a quota rebuild waits this long from the loss (or from its first
 * attempt): API processes put their in-flight runs back every KEEPER_INTERVAL_MS, so by then every run
 * still in flight is counted again.
 */
export const REBUILD_HOLD_MS = 4 * KEEPER_INTERVAL_MS;

/** Past its lease by this much, only a dead API process holds a run: the stale-run sweeper settles it. */
export const STALE_MARGIN_MS = 60_000;

/** A process stops putting back a run's entry this long past its lease, well before the sweeper may act on it. */
export const KEEP_PAST_LEASE_MS = STALE_MARGIN_MS / 2;

/** An in-flight hash the sweeper writes outlives the entry by this much. */
export const SWEPT_INFLIGHT_TTL_S = 2 * 86_400;

/** How often every API process sweeps stale runs. */
export const SWEEP_INTERVAL_MS = 30_000;

/** What the rate limiter says of a request's window: the plan's limit, what it still takes, and when its oldest entry leaves. */
export interface RateLimitState {
  readonly limit: number;
  readonly remaining: number;
  readonly resetS: number;
}

/** The RateLimit fields every answer past authentication carries (docs/api.md, rate limits). */
export const rateLimitHeaders = (state: RateLimitState): Readonly<Record<string, string>> => ({
  'RateLimit-Policy': `"rpm";q=${state.limit};w=${RATE_WINDOW_S}`,
  RateLimit: `"rpm";r=${state.remaining};t=${state.resetS}`,
});

/**
 * The refusals counted in the limit-rejection metric (api/metrics/recordLimitRejection.ts): a limit's,
 * never a body's, a missing run's or a key change's.
 */
const METERED_REFUSALS: ReadonlySet<string> = new Set([
  'rate_limit_exceeded',
  'concurrency_limit_exceeded',
  'interactions_per_request_exceeded',
  'monthly_request_quota_exceeded',
  'monthly_interaction_quota_exceeded',
]);

export const isMeteredRefusal = (code: string): boolean => METERED_REFUSALS.has(code);
