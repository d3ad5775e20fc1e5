import { readFileSync } from 'node:fs';
import type { RedisClient } from '../../shared/redis/createRedis.ts';

/**
 * What the admission scripts (admit.lua, admitReplay.lua, admitKeyChange.lua, admitStream.lua) answer
 * first: one code for one meaning in every script, each script answering the ones its header lists.
 */
const LIMIT_OUTCOMES = {
  /** Admitted (a key change: counted). */
  admitted: 0,
  /** value = retry after s */
  rateLimited: 1,
  /** The quota counter is missing (Redis lost its data, or a new period): rebuild from the ledger, ask again. Nothing was taken. */
  quotaNotLoaded: 2,
  /** value = used */
  monthlyRequestsUsedUp: 3,
  /** value = used */
  monthlyInteractionsExceeded: 4,
  /** value = retry after s */
  concurrencyFull: 5,
  /** Counted by the rate limiter; admission was not asked. */
  rateCounted: 6,
  /** The cached principal's version is not the account's current one: reload it from PostgreSQL. Nothing was taken. */
  principalStale: 7,
} as const;

type LimitOutcome = keyof typeof LIMIT_OUTCOMES;

/** An admission script's answer, decoded. */
interface AdmissionAnswer {
  readonly outcome: LimitOutcome;
  /** Requests the rate window still takes. */
  readonly remaining: number;
  /** Seconds until the window's oldest entry leaves it. */
  readonly resetS: number;
  /** What the outcome says more (LIMIT_OUTCOMES): admission's instant in µs, a retry after, a count used. */
  readonly value: number;
}

interface AdmitArguments {
  readonly rpm: number;
  readonly windowUs: number;
  /** The rate entry's, the slot's and the in-flight entry's member. */
  readonly runId: string;
  /** The request is valid and wants quota; false stops after the rate limiter. */
  readonly admit: boolean;
  readonly monthlyRequests: number;
  readonly monthlyInteractions: number;
  readonly interactions: number;
  readonly maxConcurrent: number;
  readonly leaseMs: number;
  readonly quotaTtlS: number;
  /** The version a cached principal was loaded under; absent for one that was not cached. */
  readonly authVersion?: string | undefined;
  /** The run's in-flight entry but its clock (inflightEntry.ts `encodeAdmission`); absent when `admit` is false. */
  readonly entry?: string | undefined;
}

interface AdmitReplayArguments {
  readonly rpm: number;
  readonly windowUs: number;
  readonly requestId: string;
  readonly takeSlot: boolean;
  readonly maxConcurrent: number;
  /** The replay's own id: the slot's member. */
  readonly runId: string;
  readonly leaseMs: number;
}

interface SeedLimitsArguments {
  readonly requests: number;
  readonly interactions: number;
  readonly quotaTtlS: number;
  readonly windowUs: number;
  /** The period's `YYYY-MM`. */
  readonly period: string;
  readonly holdMs: number;
  readonly holdUntilMs: number;
  readonly inLedger: readonly string[];
  readonly recent: readonly (readonly [admittedUs: number, simulationId: string])[];
}

/** A run's entry to put back, and what it counts in the quota. */
interface Reasserted {
  readonly runId: string;
  readonly entry: string;
  readonly requests: number;
  readonly interactions: number;
}

/**
 * The limit scripts as typed calls, one per Lua file (lua/): each takes its keys by name and one JSON
 * argument, and answers decoded here, in one place.
 */
export interface LimitScripts {
  readonly admit: (keys: { rateWindow: string; quota: string; slots: string; authVersion: string; inflight: string }, args: AdmitArguments) => Promise<AdmissionAnswer>;
  readonly admitReplay: (keys: { rateWindow: string; slots: string }, args: AdmitReplayArguments) => Promise<AdmissionAnswer>;
  readonly admitKeyChange: (keys: { window: string }, args: { limit: number; windowUs: number; requestId: string }) => Promise<AdmissionAnswer>;
  readonly admitStream: (
    keys: { quota: string },
    args: { monthlyRequests: number; monthlyInteractions: number; interactions: number; quotaTtlS: number },
  ) => Promise<AdmissionAnswer>;
  /** Resolves with how long to wait before asking again (0: done), and whether this call rebuilt the counter. */
  readonly seedLimits: (keys: { quota: string; rateWindow: string; inflight: string; marker: string }, args: SeedLimitsArguments) => Promise<{ waitMs: number; seeded: boolean }>;
  /** Resolves true when this call settled the run, false when it was settled already. */
  readonly settle: (
    keys: { quota: string; slots: string; inflight: string },
    args: { runId: string; requests: number; interactions: number; entry: string; ttlS: number },
  ) => Promise<boolean>;
  /** Resolves with how many entries were dropped. */
  readonly forget: (keys: { quota: string; inflight: string }, args: { runIds: readonly string[] }) => Promise<number>;
  /** Resolves with how many entries were put back. */
  readonly reassert: (keys: { quota: string; inflight: string }, args: { ttlS: number; runs: readonly Reasserted[] }) => Promise<number>;
  readonly release: (keys: { quota: string; slots: string }, args: { requests: number; interactions: number; slot?: string | undefined }) => Promise<void>;
}

type ScriptName = keyof LimitScripts;

// Each command's Lua (one file per command) and its keys in KEYS order.
const SCRIPTS: Readonly<Record<ScriptName, { readonly file: string; readonly keys: readonly string[] }>> = {
  admit: { file: 'admit.lua', keys: ['rateWindow', 'quota', 'slots', 'authVersion', 'inflight'] },
  admitReplay: { file: 'admitReplay.lua', keys: ['rateWindow', 'slots'] },
  admitKeyChange: { file: 'admitKeyChange.lua', keys: ['window'] },
  admitStream: { file: 'admitStream.lua', keys: ['quota'] },
  seedLimits: { file: 'seedLimits.lua', keys: ['quota', 'rateWindow', 'inflight', 'marker'] },
  settle: { file: 'settle.lua', keys: ['quota', 'slots', 'inflight'] },
  forget: { file: 'forget.lua', keys: ['quota', 'inflight'] },
  reassert: { file: 'reassert.lua', keys: ['quota', 'inflight'] },
  release: { file: 'release.lua', keys: ['quota', 'slots'] },
};

const INCLUDE = /^--@include (\w+)$/gm;

/** A script's source with its `--@include name` lines replaced by lua/includes/name.lua, once each. */
const loadScript = (file: string): string =>
  readFileSync(new URL(`./lua/${file}`, import.meta.url), 'utf8').replace(INCLUDE, (_line, name: string) =>
    readFileSync(new URL(`./lua/includes/${name}.lua`, import.meta.url), 'utf8').trimEnd(),
  );

// Read once, when this module loads.
const LUA = Object.fromEntries(Object.entries(SCRIPTS).map(([name, { file }]) => [name, loadScript(file)])) as Record<ScriptName, string>;

const OUTCOME_NAMES = new Map<number, LimitOutcome>(Object.entries(LIMIT_OUTCOMES).map(([name, code]) => [code, name as LimitOutcome]));

/** The one decoder of the admission scripts' answers. */
const decodeAdmission = (reply: unknown): AdmissionAnswer => {
  const [code, remaining = 0, resetS = 0, value = 0] = reply as number[];
  const outcome = code === undefined ? undefined : OUTCOME_NAMES.get(code);
  if (outcome === undefined) {
    throw new Error(`unexpected admission answer ${JSON.stringify(reply)}`);
  }
  return { outcome, remaining, resetS, value };
};

/** Each command's answer as its caller reads it. */
const DECODERS: { readonly [Name in ScriptName]: (reply: unknown) => Awaited<ReturnType<LimitScripts[Name]>> } = {
  admit: decodeAdmission,
  admitReplay: decodeAdmission,
  admitKeyChange: decodeAdmission,
  admitStream: decodeAdmission,
  seedLimits: (reply) => {
    const [waitMs = 0, seeded = 0] = reply as number[];
    return { waitMs, seeded: seeded === 1 };
  },
  settle: (reply) => reply === 1,
  forget: (reply) => reply as number,
  reassert: (reply) => reply as number,
  release: () => undefined,
};

/** A script's command as ioredis defines it: its keys, then its one argument. */
type Command = (...keysAndArgument: string[]) => Promise<unknown>;

/**
 * The one registry of the limit scripts, defined once on the process's limits connection (by
 * api/createServices.ts), as typed calls. ioredis sends them with EVALSHA and falls back to EVAL when
 * Redis has not seen a script yet (after a restart or flush), so each call stays one round trip.
 */
export const createLimitScripts = (redis: RedisClient): LimitScripts => {
  const call = <Name extends ScriptName>(name: Name) => {
    const command = `bss${name[0]!.toUpperCase()}${name.slice(1)}`;
    const { keys } = SCRIPTS[name];
    redis.defineCommand(command, { numberOfKeys: keys.length, lua: LUA[name] });
    const send = (redis as unknown as Record<string, Command>)[command]!.bind(redis);
    const decode = DECODERS[name];
    return async (named: Readonly<Record<string, string>>, args: unknown) => decode(await send(...keys.map((key) => named[key]!), JSON.stringify(args)));
  };
  return Object.fromEntries((Object.keys(SCRIPTS) as ScriptName[]).map((name) => [name, call(name)])) as unknown as LimitScripts;
};
