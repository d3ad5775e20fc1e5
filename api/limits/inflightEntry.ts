import { z } from 'zod';
import { scenarioSchema } from '../../shared/engine/scenarioSchema.ts';
import { runTimingSchema } from '../../shared/engine/runTimingSchema.ts';
import { type LedgerRowInput, settlementSchema } from '../../shared/db/queries/simulations.ts';
import { type AdmittedRun, admittedRunSchema } from '../../shared/runs/admittedRun.ts';
import { modelReferenceSchema } from '../../shared/runs/runSpecification.ts';

/**
 * A run between admission and its ledger row lives in Redis only, as an entry of its account's in-flight
 * hash (limitKeys.ts `inflight`), field = simulation id. admit.lua writes it (`state: "run"`), settle.lua
 * turns it `settled` with what the run is charged and the row it leads to, and the run's owner
 * (api/runs/createRun.ts) has the keeper drop it once the row is committed. The scripts read it through
 * one function (lua/includes/inflightEntry.lua): its state, admission instant, run (its period and
 * reservation) and charge; the rest is for the ledger row and the history.
 */
const inflightEntrySchema = z.object({
  /** Admitted at, µs since the epoch (Redis TIME): the rate window's score and the row's created_at. */
  admittedUs: z.number(),
  /** The slot's lease expiry, ms since the epoch: past it by a margin, only a dead API process holds the run. */
  leaseUntilMs: z.number(),
  state: z.enum(['run', 'settled']),
  /** The run as admission recorded it: its ledger row's fields known then, its period and its reservation (its interactions). */
  run: admittedRunSchema,
  /** Settled: requests and interactions charged. */
  charged: z.object({ requests: z.number(), interactions: z.number() }).optional(),
  /** Settled: how it ended, as the row says; null when the run never started (it leaves no row). */
  settlement: settlementSchema.nullable().optional(),
});

export type InflightEntry = z.infer<typeof inflightEntrySchema>;

/**
 * An entry as the previous version wrote it, with one-letter keys and the run's `id` and nulls: read
 * until the last such entry has settled, a few minutes after every API process runs this version (the
 * scripts read both the same way). Nothing writes it any more.
 */
const previousEntrySchema = z
  .object({
    s: z.enum(['run', 'settled']),
    n: z.number(),
    t: z.number(),
    e: z.number(),
    r: z
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
      })),
    c: z.tuple([z.number(), z.number()]).optional(),
    f: settlementSchema.nullable().optional(),
  })
  .transform(
    ({ s, t, e, r, c, f }): InflightEntry => ({
      admittedUs: t,
      leaseUntilMs: e,
      state: s,
      run: r,
      ...(c === undefined ? {} : { charged: { requests: c[0], interactions: c[1] } }),
      ...(f === undefined ? {} : { settlement: f }),
    }),
  );

const storedEntrySchema = z.union([inflightEntrySchema, previousEntrySchema]);

/** An entry as Redis holds it, or undefined for one this code cannot read (never written by it). */
export const parseInflightEntry = (raw: string): InflightEntry | undefined => {
  try {
    const parsed = storedEntrySchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/** The entry as Redis holds it: what settle.lua writes, and what reassert.lua puts back. */
export const encodeInflightEntry = (entry: InflightEntry): string => JSON.stringify(entry);

/** A new run's entry but its clock, which admit.lua puts in front from Redis TIME (see `admittedEntry`). */
export const encodeAdmission = (run: AdmittedRun): string => JSON.stringify({ state: 'run', run });

/** The entry admit.lua wrote for `run`, admitted at `admittedUs` under a lease of `leaseMs`. */
export const admittedEntry = (run: AdmittedRun, admittedUs: number, leaseMs: number): InflightEntry => ({
  admittedUs,
  leaseUntilMs: Math.floor(admittedUs / 1000) + leaseMs,
  state: 'run',
  run,
});

/** µs since the epoch as an ISO timestamp to the microsecond (a Date keeps milliseconds only). */
export const isoMicros = (us: number): string => {
  const ms = Math.floor(us / 1000);
  return new Date(ms).toISOString().replace('Z', `${String(us - ms * 1000).padStart(3, '0')}Z`);
};

/** The ledger row a settled entry leads to, or undefined when it leads to none. */
export const ledgerRowOf = (entry: InflightEntry): LedgerRowInput | undefined =>
  entry.settlement === undefined || entry.settlement === null ? undefined : { ...entry.run, ...entry.settlement, createdAt: isoMicros(entry.admittedUs) };
