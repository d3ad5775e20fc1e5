import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

const totalsSchema = z.object({ requests: z.number(), interactions: z.number() });

export type UsageTotals = z.infer<typeof totalsSchema>;

const ledgerQuotaSchema = z.object({
  requests: z.number(),
  interactions: z.number(),
  runs: z.number(),
  present: z.array(z.string()),
});

export type LedgerQuota = z.infer<typeof ledgerQuotaSchema>;

/**
 * What the ledger holds of a period's quota, for a rebuild of Redis's counter (api/limits/admitSimulation.ts):
 * every settled row that was charged (completed, or cancelled after its first bytes:
 * `charged_interactions`), rows still `queued` (written by an earlier version of the service, reserved in
 * full), how many rows the account has in the period at all, and which of `inflightIds` (runs Redis holds
 * in flight) already have their row, all in one statement, so one snapshot: a row committing meanwhile is
 * counted either here or as in flight, never in both or neither.
 */
export const readLedgerQuota = async (
  connection: CommonQueryMethods,
  input: { readonly accountId: string; readonly periodStart: Date; readonly inflightIds: readonly string[] },
): Promise<LedgerQuota> =>
  connection.one(sql.type(ledgerQuotaSchema)`
    WITH period AS (
      SELECT status, num_interactions, charged_interactions
      FROM simulations
      WHERE account_id = ${input.accountId} AND period_start = ${input.periodStart.toISOString()}
    )
    , stream_period AS (
      -- Streams (docs/streams.md): a running one holds its whole reservation, an ended one what it was charged.
      SELECT coalesce(sum(CASE WHEN status = 'running' THEN 1 ELSE charged_requests END), 0)::int AS requests,
        coalesce(sum(CASE WHEN status = 'running' THEN num_interactions ELSE charged_interactions END), 0)::float8 AS interactions,
        count(*)::int AS runs
      FROM streams
      WHERE account_id = ${input.accountId} AND period_start = ${input.periodStart.toISOString()}
    )
    SELECT
      count(*) FILTER (WHERE status = 'queued' OR charged_interactions IS NOT NULL)::int + (SELECT requests FROM stream_period) AS requests,
      coalesce(sum(CASE WHEN status = 'queued' THEN num_interactions ELSE charged_interactions END), 0)::float8
        + (SELECT interactions FROM stream_period) AS interactions,
      count(*)::int + (SELECT runs FROM stream_period) AS runs,
      (SELECT coalesce(array_agg(id::text), '{}') FROM simulations WHERE id = ANY(${sql.array(input.inflightIds, 'uuid')})) AS present
    FROM period
  `);

const completedUsageSchema = totalsSchema.extend({ recorded: z.array(z.string()) });

/**
 * What the usage endpoint reports: settled runs that were charged, plus streams as readLedgerQuota counts
 * them (a running one holds its whole reservation, an ended one what it was charged; docs/streams.md), so
 * the answer matches the quota that admits the next request. `recorded` is which of `pending` (runs Redis
 * holds settled, whose rows are written after their answer) the ledger has already, in the same
 * statement, so one snapshot: the caller adds the others, and a row committing meanwhile is counted once.
 */
export const sumCompletedUsage = async (
  connection: CommonQueryMethods,
  accountId: string,
  periodStart: Date,
  pending: readonly string[] = [],
): Promise<UsageTotals & { readonly recorded: readonly string[] }> =>
  connection.one(sql.type(completedUsageSchema)`
    WITH runs AS (
      SELECT count(*)::int AS requests, coalesce(sum(charged_interactions), 0)::bigint AS interactions
      FROM simulations
      WHERE account_id = ${accountId} AND period_start = ${periodStart.toISOString()} AND charged_interactions IS NOT NULL
    ), live AS (
      SELECT coalesce(sum(CASE WHEN status = 'running' THEN 1 ELSE charged_requests END), 0)::int AS requests,
        coalesce(sum(CASE WHEN status = 'running' THEN num_interactions ELSE charged_interactions END), 0)::bigint AS interactions
      FROM streams
      WHERE account_id = ${accountId} AND period_start = ${periodStart.toISOString()}
    )
    SELECT runs.requests + live.requests AS requests, runs.interactions + live.interactions AS interactions,
      ${
        pending.length === 0
          ? sql.fragment`'{}'::text[]`
          : sql.fragment`(SELECT coalesce(array_agg(id::text), '{}') FROM simulations WHERE id = ANY(${sql.array(pending, 'uuid')}))`
      } AS recorded
    FROM runs, live
  `);

/** Which of `ids` the ledger has a row for. */
export const findRecordedRuns = async (connection: CommonQueryMethods, ids: readonly string[]): Promise<readonly string[]> =>
  ids.length === 0 ? [] : connection.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id::text AS id FROM simulations WHERE id = ANY(${sql.array(ids, 'uuid')})`);

const staleSchema = z.object({ id: z.string(), account_id: z.string(), num_interactions: z.number(), period_start: z.string() });

/**
 * Runs still `queued` long after every deadline belong to an API process that died while waiting:
 * mark them timed out so their reservation is given back. Returns the rows it settled.
 */
export const expireStaleSimulations = async (connection: CommonQueryMethods, olderThanMs: number): Promise<readonly z.infer<typeof staleSchema>[]> =>
  connection.any(sql.type(staleSchema)`
    UPDATE simulations SET status = 'timed_out', finished_at = now()
    WHERE status = 'queued' AND created_at < now() - make_interval(secs => ${olderThanMs / 1000})
    RETURNING id, account_id, num_interactions, period_start
  `);

const recentAdmissionSchema = z.object({ id: z.string(), admitted_us: z.number() });

/**
 * The account's admissions of the last `windowSeconds` (every ledger row: each one was counted by the rate
 * limiter when admitted), with their admission time in µs since the epoch. Redis's rate window is rebuilt
 * from these when its copy is lost.
 */
export const listRecentAdmissions = async (
  connection: CommonQueryMethods,
  accountId: string,
  windowSeconds: number,
): Promise<readonly z.infer<typeof recentAdmissionSchema>[]> =>
  connection.any(sql.type(recentAdmissionSchema)`
    SELECT id, floor(extract(epoch FROM created_at) * 1000000)::float8 AS admitted_us
    FROM simulations
    WHERE account_id = ${accountId} AND created_at > now() - make_interval(secs => ${windowSeconds})
  `);
