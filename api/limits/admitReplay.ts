import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../shared/redis/createRedis.ts';
import type { PlanRow } from '../../shared/db/queries/plans.ts';
import type { AppError } from '../../shared/errors/AppError.ts';
import { concurrencyLimitExceeded, rateLimitExceeded } from '../../shared/errors/errors.ts';
import { monthlyPeriod, type MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { Services } from '../Services.ts';
import { limitKeys } from './limitKeys.ts';
import { REPLAY_ADMISSION_SCRIPT } from './replayAdmissionScript.ts';

const WINDOW_US = 60_000_000;

interface ReplayScriptedRedis {
  bssAdmitReplay(rateWindow: string, slots: string, ...args: (string | number)[]): Promise<number[]>;
}

const defined = new WeakSet<RedisClient>();

const replayScript = (redis: RedisClient): ReplayScriptedRedis => {
  if (!defined.has(redis)) {
    redis.defineCommand('bssAdmitReplay', { numberOfKeys: 2, lua: REPLAY_ADMISSION_SCRIPT });
    defined.add(redis);
  }
  return redis as unknown as ReplayScriptedRedis;
};

interface ReplayAdmission {
  readonly headers: Readonly<Record<string, string>>;
  readonly period: MonthlyPeriod;
  /** Set when a slot was taken: the replay's own id, the slot's member and the job's id. */
  readonly replayId?: string;
  readonly refusal?: AppError;
}

/**
 * The rate limiter and a concurrency slot for a replay, in one round trip, and nothing of the monthly
 * quota. `wantsSlot` false (the run cannot be replayed) still counts the request in the rate window, as
 * every admitted attempt of POST /v1/simulations does, so probing ids costs rate like anything else.
 */
export const admitReplay = async (
  services: Services,
  input: { accountId: string; plan: PlanRow; requestId: string; wantsSlot: boolean },
): Promise<ReplayAdmission> => {
  const period = monthlyPeriod(services.now());
  const keys = limitKeys(services.redisPrefix, input.accountId, period.key);
  const replayId = randomUUID();
  const { plan } = input;
  const [outcome = -1, remaining = 0, reset = 0, a = 0] = await replayScript(services.redis).bssAdmitReplay(
    keys.rateWindow,
    keys.slots,
    plan.requests_per_minute,
    WINDOW_US,
    `${input.requestId}:${replayId}`,
    input.wantsSlot ? 1 : 0,
    plan.max_concurrent_simulations,
    replayId,
    services.config.simulationTimeoutMs + 5000,
  );
  const headers = {
    'RateLimit-Policy': `"rpm";q=${plan.requests_per_minute};w=60`,
    RateLimit: `"rpm";r=${remaining};t=${reset}`,
  };
  switch (outcome) {
    case 0:
      return { headers, period, replayId };
    case 6:
      return { headers, period };
    case 1:
      return { headers, period, refusal: rateLimitExceeded(plan.requests_per_minute, a) };
    case 5:
      return { headers, period, refusal: concurrencyLimitExceeded(plan.max_concurrent_simulations, a) };
    default:
      throw new Error(`unexpected replay admission outcome ${outcome}`);
  }
};
