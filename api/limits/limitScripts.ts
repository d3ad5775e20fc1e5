import type { RedisClient } from '../../shared/redis/createRedis.ts';
import { ADMISSION_SCRIPT, RELEASE_SCRIPT, SEED_LIMITS_SCRIPT } from './admissionScript.ts';

type Argument = string | number;

interface ScriptedRedis {
  bssAdmit(k1: string, k2: string, k3: string, k4: string, ...args: Argument[]): Promise<number[]>;
  bssSeedLimits(k1: string, k2: string, ...args: Argument[]): Promise<number>;
  bssRelease(k1: string, k2: string, ...args: Argument[]): Promise<number>;
}

const defined = new WeakSet<RedisClient>();

/**
 * The limit scripts as typed calls. ioredis sends them with EVALSHA and falls back to EVAL when Redis
 * has not seen a script yet (after a restart or flush), so each call stays one round trip.
 */
export const limitScripts = (redis: RedisClient): ScriptedRedis => {
  if (!defined.has(redis)) {
    redis.defineCommand('bssAdmit', { numberOfKeys: 4, lua: ADMISSION_SCRIPT });
    redis.defineCommand('bssSeedLimits', { numberOfKeys: 2, lua: SEED_LIMITS_SCRIPT });
    redis.defineCommand('bssRelease', { numberOfKeys: 2, lua: RELEASE_SCRIPT });
    defined.add(redis);
  }
  return redis as unknown as ScriptedRedis;
};
