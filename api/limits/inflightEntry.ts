import { z } from 'zod';
import { scenarioSchema } from '../../shared/engine/scenarioSchema.ts';
import { runTimingSchema } from '../../shared/engine/runTimingSchema.ts';
import { type LedgerRowInput, type Settlement, settlementSchema } from '../../shared/db/queries/simulations.ts';
import { type AdmittedRun, admittedRunSchema } from '../../shared/runs/admittedRun.ts';
import { modelReferenceSchema } from '../../shared/runs/runSpecification.ts';

/**
 * A run between admission and its ledger row lives in Redis only, as an entry of its account's in-flight
 * hash (api/limits/limitKeys.ts `inflight`), field = simulation id. admit.lua writes it (`s: "run"`),
 * settle.lua turns it `settled` with what the run is charged and the row it leads to, and the run's lease
 * drops it once the row is committed. Lua reads `s`, `p`, `n`, `t` and `c`; the rest is for the ledger
 * row and the history.
 */
export interface InflightEntry {
  readonly s: 'run' | 'settled';
  /** The monthly period's key (shared/limits/monthlyPeriod.ts) whose quota holds the reservation. */
  readonly p: string;
  /** Interactions reserved. */
  readonly n: number;
  /** Admitted at, µs since the epoch (Redis TIME): the rate window's score and the row's created_at. */
  readonly t: number;
  /** The slot's lease expiry, ms since the epoch: past it by a margin, only a dead API process holds the run. */
  readonly e: number;
  /** The ledger row's fields known at admission. */
  readonly r: AdmittedRun;
  /** Settled: requests and interactions charged. */
  readonly c?: readonly [number, number];
  /** Settled: how it ended, as the row says; absent when the run never started (it leaves no row). */
  readonly f?: Settlement | null;
}

/**
 * The run as an API process of the previous version wrote it (`id` for the simulation id, null for what a
 * run has not): read until the last such entry has settled, a few minutes after every process runs this
 * version. Nothing writes it any more.
 */
const previousRunSchema = z
  .object({
    id: z.string(),
    accountId: z.string(),
    apiKeyId: z.string().nullable(),
    sessionId: z.string().nullable(),
    preset: z.string(),
    profile: z.string(),
    seed: z.number(),
    numInteractions: z.number(),
    periodStart: z.string(),
    serviceVersion: z.string(),
    scenario: scenarioSchema.nullable().optional(),
    timing: runTimingSchema.nullable().optional(),
    model: modelReferenceSchema.nullable().optional(),
  })
  .transform(({ id, scenario, timing, model, ...run }): AdmittedRun => ({
    ...run,
    simulationId: id,
    ...(scenario == null ? {} : { scenario }),
    ...(timing == null ? {} : { timing }),
    ...(model == null ? {} : { model }),
  }));

const entrySchema = z.object({
  s: z.enum(['run', 'settled']),
  p: z.string(),
  n: z.number(),
  t: z.number(),
  e: z.number(),
  r: z.union([admittedRunSchema, previousRunSchema]),
  c: z.tuple([z.number(), z.number()]).optional(),
  f: settlementSchema.nullable().optional(),
});

/** An entry as Redis holds it, or undefined for one this code cannot read (never written by it). */
export const parseInflightEntry = (raw: string): InflightEntry | undefined => {
  try {
    const parsed = entrySchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/** The entry as admit.lua writes it, for a lease that puts it back (reassert.lua). */
export const encodeInflightEntry = (entry: InflightEntry): string => JSON.stringify(entry);

/** A run's fields as admit.lua stores them in the entry's `r`. */
export const encodeRunInput = (run: AdmittedRun): string => JSON.stringify(run);

/** µs since the epoch as an ISO timestamp to the microsecond (a Date keeps milliseconds only). */
export const isoMicros = (us: number): string => {
  const ms = Math.floor(us / 1000);
  return new Date(ms).toISOString().replace('Z', `${String(us - ms * 1000).padStart(3, '0')}Z`);
};

/** The ledger row a settled entry leads to, or undefined when it leads to none. */
export const ledgerRowOf = (entry: InflightEntry): LedgerRowInput | undefined =>
  entry.f === undefined || entry.f === null ? undefined : { ...entry.r, ...entry.f, createdAt: isoMicros(entry.t) };
