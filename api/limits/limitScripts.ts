import { readFileSync } from 'node:fs';
import type { RedisClient } from '../../shared/redis/createRedis.ts';

type Argument = string | number;

interface ScriptedRedis {
  bssAdmit(k1: string, k2: string, k3: string, k4: string, ...args: Argument[]): Promise<number[]>;
  bssSeedLimits(k1: string, k2: string, ...args: Argument[]): Promise<number>;
  bssRelease(k1: string, k2: string, ...args: Argument[]): Promise<number>;
  bssAdmitReplay(k1: string, k2: string, ...args: Argument[]): Promise<number[]>;
  bssAdmitKeyChange(k1: string, ...args: Argument[]): Promise<number[]>;
}

/** Outcomes of admit.lua, its first return value. */
export const ADMISSION_OUTCOMES = {
  admitted: 0,
  /** a = retry after s */
  rateLimited: 1,
  /** The quota counter is missing (Redis lost its data, or a new period): rebuild from the ledger, ask again. Nothing was taken. */
  quotaNotLoaded: 2,
  /** a = used */
  monthlyRequestsUsedUp: 3,
  /** a = used */
  monthlyInteractionsExceeded: 4,
  /** a = retry after s */
  concurrencyFull: 5,
  /** Counted by the rate limiter; admission was not asked. */
  rateCounted: 6,
  /** The cached principal's version is not the account's current one: reload it from PostgreSQL. Nothing was taken. */
  principalStale: 7,
} as const;

/** Outcomes of admitReplay.lua: the same codes as admit.lua where they mean the same. */
export const REPLAY_ADMISSION_OUTCOMES = { admitted: 0, rateLimited: 1, concurrencyFull: 5, rateCounted: 6 } as const;

/** Outcomes of admitKeyChange.lua. */
export const KEY_CHANGE_OUTCOMES = { counted: 0, rateLimited: 1 } as const;

// Each command's Lua, one file per command (lua/), read once when this module loads.
const SCRIPTS = {
  bssAdmit: { file: 'admit.lua', numberOfKeys: 4 },
  bssSeedLimits: { file: 'seedLimits.lua', numberOfKeys: 2 },
  bssRelease: { file: 'release.lua', numberOfKeys: 2 },
  bssAdmitReplay: { file: 'admitReplay.lua', numberOfKeys: 2 },
  bssAdmitKeyChange: { file: 'admitKeyChange.lua', numberOfKeys: 1 },
} as const satisfies Record<keyof ScriptedRedis, { file: string; numberOfKeys: number }>;

const LUA = Object.fromEntries(
  Object.entries(SCRIPTS).map(([name, { file }]) => [name, readFileSync(new URL(`./lua/${file}`, import.meta.url), 'utf8')]),
) as Record<keyof ScriptedRedis, string>;

const defined = new WeakSet<RedisClient>();

/**
 * The one registry of the limit scripts, as typed calls. ioredis sends them with EVALSHA and falls back to
 * EVAL when Redis has not seen a script yet (after a restart or flush), so each call stays one round trip.
 */
export const limitScripts = (redis: RedisClient): ScriptedRedis => {
  if (!defined.has(redis)) {
    for (const [name, { numberOfKeys }] of Object.entries(SCRIPTS) as [keyof ScriptedRedis, { numberOfKeys: number }][]) {
      redis.defineCommand(name, { numberOfKeys, lua: LUA[name] });
    }
    defined.add(redis);
  }
  return redis as unknown as ScriptedRedis;
};
