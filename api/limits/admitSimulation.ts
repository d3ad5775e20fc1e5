import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { AppError } from '../../shared/errors/AppError.ts';
import {
  concurrencyLimitExceeded,
  monthlyInteractionQuotaExceeded,
  monthlyRequestQuotaExceeded,
  rateLimitExceeded,
} from '../../shared/errors/errors.ts';
import type { PlanRow } from '../../shared/db/queries/plans.ts';
import type { AdmittedRun } from '../../shared/runs/admittedRun.ts';
import { listRecentAdmissions, readLedgerQuota } from '../../shared/db/queries/usage.ts';
import { authVersionKey } from '../../shared/auth/authVersion.ts';
import { monthlyPeriod, type MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { LimitDependencies } from './LimitDependencies.ts';
import { limitKeys, limitsEpochKey } from './limitKeys.ts';
import { admittedEntry, encodeAdmission, type InflightEntry } from './inflightEntry.ts';
import { periodTtlSeconds, RATE_WINDOW_S, RATE_WINDOW_US, type RateLimitState, REBUILD_HOLD_MS, slotLeaseMs } from './limitPolicy.ts';

export interface AdmissionInput {
  readonly accountId: string;
  readonly plan: PlanRow;
  readonly requestId: string;
  /**
   * The run to admit, without its id (admission draws it) and period (admission's clock decides it): what its in-flight entry and, once settled,
   * its ledger row say. Absent when the request was refused before quota (invalid body, per-request
   * maximum): only the rate limiter counts it.
   */
  readonly run?: Omit<AdmittedRun, 'simulationId' | 'periodStart'>;
  /** The version a cached principal was loaded under (Principal.authVersion): the script confirms it first. */
  readonly authVersion?: string;
}

export interface Admission {
  /** The rate window as this request left it: what every answer past authentication says (limitPolicy.ts). */
  readonly rateLimit: RateLimitState;
  /** Set when quota and a slot were taken: the simulation id they are held under. */
  readonly simulationId?: string;
  /** Set with simulationId for a new run: its in-flight entry as admit.lua wrote it. */
  readonly admitted?: InflightEntry;
  readonly period: MonthlyPeriod;
  /** Set when the request is refused. */
  readonly refusal?: AppError;
  /** Set when the cached principal is out of date: nothing was taken; reload it and ask again. */
  readonly principalStale?: boolean;
}

/**
 * Runs the admission script; on a lost quota counter (Redis restarted or flushed, or a new month) it
 * rebuilds the counter and the rate window from the ledger and asks again (nothing was counted yet).
 */
export const admitSimulation = async (deps: LimitDependencies, input: AdmissionInput): Promise<Admission> => {
  // One reading of the domain clock decides both the period and how long its counter lives.
  const now = deps.now();
  const period = monthlyPeriod(now);
  const keys = limitKeys(deps.redisPrefix, input.accountId, period.key);
  const simulationId = randomUUID();
  const quotaTtl = periodTtlSeconds(period, now.getTime());
  const { plan } = input;
  const run: AdmittedRun | undefined = input.run === undefined ? undefined : { ...input.run, simulationId, periodStart: period.start.toISOString() };
  const leaseMs = slotLeaseMs(deps.config);

  const ask = () =>
    deps.limitScripts.admit(
      { ...keys, authVersion: authVersionKey(deps.redisPrefix, input.accountId) },
      {
        rpm: plan.requests_per_minute,
        windowUs: RATE_WINDOW_US,
        runId: simulationId,
        admit: run !== undefined,
        monthlyRequests: plan.monthly_requests,
        monthlyInteractions: plan.monthly_interactions,
        interactions: run?.numInteractions ?? 0,
        maxConcurrent: plan.max_concurrent_simulations,
        leaseMs,
        quotaTtlS: quotaTtl,
        authVersion: input.authVersion,
        entry: run === undefined ? undefined : encodeAdmission(run),
      },
    );

  let answer = await ask();
  if (answer.outcome === 'quotaNotLoaded') {
    await rebuildLimits(deps, { accountId: input.accountId, period, keys, quotaTtl });
    answer = await ask();
  }
  const { value } = answer;
  const rateLimit = { limit: plan.requests_per_minute, remaining: answer.remaining, resetS: answer.resetS };
  const resetsAt = period.end.toISOString();
  switch (answer.outcome) {
    case 'admitted':
      return { rateLimit, period, simulationId, ...(run === undefined ? {} : { admitted: admittedEntry(run, value, leaseMs) }) };
    case 'rateCounted':
      return { rateLimit, period };
    case 'principalStale':
      return { rateLimit, period, principalStale: true };
    case 'rateLimited':
      return { rateLimit, period, refusal: rateLimitExceeded(plan.requests_per_minute, value) };
    case 'monthlyRequestsUsedUp':
      return { rateLimit, period, refusal: monthlyRequestQuotaExceeded(plan.monthly_requests, value, resetsAt) };
    case 'monthlyInteractionsExceeded':
      return { rateLimit, period, refusal: monthlyInteractionQuotaExceeded(plan.monthly_interactions, value, run?.numInteractions ?? 0, resetsAt) };
    case 'concurrencyFull':
      return { rateLimit, period, refusal: concurrencyLimitExceeded(plan.max_concurrent_simulations, value) };
    default:
      throw new Error(`unexpected admission outcome ${answer.outcome}`);
  }
};

/**
 * Rebuilds the account's quota counter and rate window (seedLimits.lua) from the ledger's settled rows and
 * the runs Redis holds in flight. Runs in flight when Redis lost its data are back within one keeper
 * interval (createLeaseKeeper.ts): a rebuild waits until REBUILD_HOLD_MS after the loss (the limits
 * epoch's age), and, where only the account's data went (a failed-over Cluster node: its marker gone,
 * the epoch old), REBUILD_HOLD_MS from its first attempt if the account has runs this period. The ledger
 * is read again after the wait.
 */
export const rebuildLimits = async (
  deps: LimitDependencies,
  input: { accountId: string; period: MonthlyPeriod; keys: ReturnType<typeof limitKeys>; quotaTtl: number },
): Promise<void> => {
  const { keys } = input;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const [epoch, inflightIds] = await Promise.all([deps.redis.get(limitsEpochKey(deps.redisPrefix)), deps.redis.hkeys(keys.inflight)]);
    // A Redis that lost its data a moment ago (or is new): wait until the processes had time to put back
    // their runs. A missing epoch is a loss this process's keeper has not seen yet.
    const holdUntil = epoch === null ? Date.now() + REBUILD_HOLD_MS : Number(epoch) + REBUILD_HOLD_MS;
    const [ledger, recent] = await Promise.all([
      readLedgerQuota(deps.pool, { accountId: input.accountId, periodStart: input.period.start, inflightIds }),
      listRecentAdmissions(deps.pool, input.accountId, RATE_WINDOW_S),
    ]);
    const { waitMs } = await deps.limitScripts.seedLimits(keys, {
      requests: ledger.requests,
      interactions: ledger.interactions,
      quotaTtlS: input.quotaTtl,
      windowUs: RATE_WINDOW_US,
      period: input.period.key,
      holdMs: ledger.runs > 0 ? REBUILD_HOLD_MS : 0,
      holdUntilMs: holdUntil,
      inLedger: ledger.present,
      recent: recent.map((row) => [row.admitted_us, row.id] as const),
    });
    if (waitMs <= 0) {
      return;
    }
    await delay(waitMs);
  }
};
