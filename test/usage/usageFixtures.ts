import { randomUUID } from 'node:crypto';
import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { SimulationStatus } from '../../shared/db/queries/simulations.ts';

export interface SettledRun {
  readonly accountId: string;
  readonly status: SimulationStatus;
  /** Null: counts no request. Defaults to num_interactions for a completed run, else null. */
  readonly charged?: number | null;
  readonly numInteractions?: number;
  readonly apiKeyId?: string | null;
  readonly sessionId?: string | null;
  /** ISO; defaults to the statement's now(). */
  readonly createdAt?: string;
  /** ISO; defaults to the month of createdAt. */
  readonly periodStart?: string;
  /** The run's inputs, for a run shown again from the history: finance, balanced_investor, seed 7 unless told. */
  readonly preset?: string;
  readonly profile?: string;
  readonly seed?: number;
}

/**
 * Ledger rows written as one INSERT of rows already in their final status: the ledger's one-write shape
 * (a row written once, at settlement), and how tests place runs on chosen days.
 */
export const insertSettledRuns = async (connection: CommonQueryMethods, runs: readonly SettledRun[]): Promise<string[]> => {
  const ids = runs.map(() => randomUUID());
  await connection.query(sql.type(z.object({}))`
    INSERT INTO simulations (id, account_id, api_key_id, session_id, preset, profile, seed, num_interactions, status, period_start,
      created_at, finished_at, compute_ms, charged_interactions)
    SELECT id, account_id, api_key_id, session_id, preset, profile, seed, num_interactions, status,
      coalesce(period_start, date_trunc('month', coalesce(created_at, now()) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'),
      coalesce(created_at, now()), CASE WHEN status = 'queued' THEN NULL ELSE coalesce(created_at, now()) END,
      CASE WHEN status = 'queued' THEN NULL ELSE 3 END, charged
    FROM ${sql.unnest(
      runs.map((run, index) => {
        const numInteractions = run.numInteractions ?? 10;
        const charged = run.charged === undefined ? (run.status === 'completed' ? numInteractions : null) : run.charged;
        return [ids[index] as string, run.accountId, run.apiKeyId ?? null, run.sessionId ?? null, numInteractions, run.status,
          run.periodStart ?? null, run.createdAt ?? null, charged, run.preset ?? 'finance', run.profile ?? 'balanced_investor', run.seed ?? 7];
      }),
      ['uuid', 'uuid', 'uuid', 'uuid', 'int4', 'text', 'timestamptz', 'timestamptz', 'int4', 'text', 'text', 'int8'],
    )} AS runs (id, account_id, api_key_id, session_id, num_interactions, status, period_start, created_at, charged, preset, profile, seed)
  `);
  return ids;
};

const bucketSchema = z.object({
  account_id: z.string(),
  period_start: z.string(),
  day: z.string(),
  api_key_id: z.string().nullable(),
  status: z.string(),
  runs: z.number(),
  requests: z.number(),
  interactions: z.number(),
});

export type Bucket = z.infer<typeof bucketSchema>;

const sortBuckets = (buckets: readonly Bucket[]): Bucket[] =>
  [...buckets].sort((a, b) => JSON.stringify(Object.values(a)).localeCompare(JSON.stringify(Object.values(b))));

/** The accounts' non-empty buckets in the rollup (a bucket a settlement emptied is kept, at zero). */
export const readRollup = async (connection: CommonQueryMethods, accountIds: readonly string[]): Promise<Bucket[]> =>
  sortBuckets(
    await connection.any(sql.type(bucketSchema)`
      SELECT account_id, period_start, to_char(day, 'YYYY-MM-DD') AS day, api_key_id, status, runs, requests, interactions
      FROM usage_daily
      WHERE account_id = ANY(${sql.array(accountIds, 'uuid')}) AND (runs <> 0 OR requests <> 0 OR interactions <> 0)
    `),
  );

/** The same buckets computed from the ledger itself: what the rollup must always equal. */
export const aggregateLedger = async (connection: CommonQueryMethods, accountIds: readonly string[]): Promise<Bucket[]> =>
  sortBuckets(
    await connection.any(sql.type(bucketSchema)`
      SELECT account_id, period_start, to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, api_key_id, status,
        count(*)::int8 AS runs, count(charged_interactions)::int8 AS requests, coalesce(sum(charged_interactions), 0)::int8 AS interactions
      FROM simulations WHERE account_id = ANY(${sql.array(accountIds, 'uuid')})
      GROUP BY 1, 2, 3, 4, 5
    `),
  );
