import { readFileSync } from 'node:fs';
import type { RedisClient } from '../../shared/redis/createRedis.ts';

type Argument = string | number;

/** The limit scripts as typed calls, one per Lua file. */
export interface LimitScripts {
  bssAdmit(k1: string, k2: string, k3: string, k4: string, k5: string, ...args: Argument[]): Promise<number[]>;
  bssSeedLimits(k1: string, k2: string, k3: string, k4: string, ...args: Argument[]): Promise<number[]>;
  bssSettle(k1: string, k2: string, k3: string, ...args: Argument[]): Promise<number>;
  bssForget(k1: string, k2: string, ...args: Argument[]): Promise<number>;
  bssReassert(k1: string, k2: string, ...args: Argument[]): Promise<number>;
  bssRelease(k1: string, k2: string, ...args: Argument[]): Promise<number>;
  bssAdmitReplay(k1: string, k2: string, ...args: Argument[]): Promise<number[]>;
  bssAdmitKeyChange(k1: string, ...args: Argument[]): Promise<number[]>;
  bssAdmitStream(k1: string, ...args: Argument[]): Promise<number[]>;
}

/**
 * What the admission scripts (admit.lua, admitReplay.lua, admitKeyChange.lua) answer, their first return
 * value: one code for one meaning in every script, each script answering the ones its header lists.
 */
export const LIMIT_OUTCOMES = {
  /** Admitted (a key change: counted). */
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

// Each command's Lua, one file per command (lua/), read once when this module loads.
const SCRIPTS = {
  bssAdmit: { file: 'admit.lua', numberOfKeys: 5 },
  bssSeedLimits: { file: 'seedLimits.lua', numberOfKeys: 4 },
  bssSettle: { file: 'settle.lua', numberOfKeys: 3 },
  bssForget: { file: 'forget.lua', numberOfKeys: 2 },
  bssReassert: { file: 'reassert.lua', numberOfKeys: 2 },
  bssRelease: { file: 'release.lua', numberOfKeys: 2 },
  bssAdmitReplay: { file: 'admitReplay.lua', numberOfKeys: 2 },
  bssAdmitKeyChange: { file: 'admitKeyChange.lua', numberOfKeys: 1 },
  bssAdmitStream: { file: 'admitStream.lua', numberOfKeys: 1 },
} as const satisfies Record<keyof LimitScripts, { file: string; numberOfKeys: number }>;

const INCLUDE = /^--@include (\w+)$/gm;

/** A script's source with its `--@include name` lines replaced by lua/includes/name.lua, once each. */
const loadScript = (file: string): string =>
  readFileSync(new URL(`./lua/${file}`, import.meta.url), 'utf8').replace(INCLUDE, (_line, name: string) =>
    readFileSync(new URL(`./lua/includes/${name}.lua`, import.meta.url), 'utf8').trimEnd(),
  );

const LUA = Object.fromEntries(Object.entries(SCRIPTS).map(([name, { file }]) => [name, loadScript(file)])) as Record<keyof LimitScripts, string>;

/**
 * The one registry of the limit scripts, defined once on the process's limits connection (by
 * api/createServices.ts), as typed calls. ioredis sends them with EVALSHA and falls back to EVAL when
 * Redis has not seen a script yet (after a restart or flush), so each call stays one round trip.
 */
export const createLimitScripts = (redis: RedisClient): LimitScripts => {
  for (const [name, { numberOfKeys }] of Object.entries(SCRIPTS) as [keyof LimitScripts, { numberOfKeys: number }][]) {
    redis.defineCommand(name, { numberOfKeys, lua: LUA[name] });
  }
  return redis as unknown as LimitScripts;
};
