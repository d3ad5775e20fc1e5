import { type CommonQueryMethods, type FragmentSqlToken, sql } from 'slonik';
import { z } from 'zod';
import { simulationStatusSchema } from './simulations.ts';

/**
 * One group of the rollup (migration 0011): a day's runs in one status (`day` set, no credential), or a
 * credential's runs in one status over the whole period (`day` null).
 */
const dailyUsageRowSchema = z.object({
  day: z.string().nullable(),
  api_key_id: z.string().nullable(),
  key_prefix: z.string().nullable(),
  status: simulationStatusSchema,
  runs: z.number(),
  requests: z.number(),
  interactions: z.number(),
  last_run_at: z.string().nullable(),
});

export type DailyUsageRow = z.infer<typeof dailyUsageRowSchema>;

/** Whose runs the days count: a browser session's, one key's, or (absent) every credential's. */
export type UsageCredentialFilter = { readonly type: 'session' } | { readonly type: 'api_key'; readonly apiKeyId: string };

export interface ListDailyUsageInput {
  readonly accountId: string;
  /** ISO timestamp: the first instant of the UTC month. */
  readonly periodStart: string;
  readonly credential?: UsageCredentialFilter;
}

/** Whether a row's credential (its `api_key_id` column, null for a session) is the filter's; true without one. */
const credentialMatches = (column: readonly [string, string], credential: UsageCredentialFilter | undefined): FragmentSqlToken =>
  credential === undefined
    ? sql.fragment`true`
    : credential.type === 'session'
      ? sql.fragment`${sql.identifier(column)} IS NULL`
      : sql.fragment`${sql.identifier(column)} IS NOT DISTINCT FROM ${credential.apiKeyId}::uuid`;

/**
 * A period's usage by day and by credential, each split by status, in one statement over one index range
 * of the rollup (at most days x credentials x statuses rows, however many runs they count). The day
 * groups count only the filtered credential's runs; the credential groups always count every credential.
 */
export const listDailyUsage = async (connection: CommonQueryMethods, input: ListDailyUsageInput): Promise<readonly DailyUsageRow[]> =>
  connection.any(sql.type(dailyUsageRowSchema)`${dailyUsageStatement(input)}`);

/** The statement alone, so `npm run bench:usage` can EXPLAIN ANALYZE exactly what is served. */
export const dailyUsageStatement = (input: ListDailyUsageInput): FragmentSqlToken => {
  const matches = credentialMatches(['usage_daily', 'api_key_id'], input.credential);
  // GROUPING(day) is 0 in the day groups: they sum the filtered credential only.
  const total = (column: string) => sql.fragment`
    (CASE WHEN GROUPING(usage_daily.day) = 0
      THEN coalesce(sum(${sql.identifier(['usage_daily', column])}) FILTER (WHERE ${matches}), 0)
      ELSE sum(${sql.identifier(['usage_daily', column])}) END)::int8
  `;
  return sql.fragment`
    SELECT to_char(usage_daily.day, 'YYYY-MM-DD') AS day, usage_daily.api_key_id, api_keys.key_prefix, usage_daily.status,
      ${total('runs')} AS runs, ${total('requests')} AS requests, ${total('interactions')} AS interactions,
      max(usage_daily.last_run_at) FILTER (WHERE usage_daily.runs > 0) AS last_run_at
    FROM usage_daily
    LEFT JOIN api_keys ON api_keys.id = usage_daily.api_key_id
    WHERE usage_daily.account_id = ${input.accountId} AND usage_daily.period_start = ${input.periodStart}
    GROUP BY GROUPING SETS ((usage_daily.day, usage_daily.status), (usage_daily.api_key_id, api_keys.key_prefix, usage_daily.status))
  `;
};

/**
 * A period's streams as rows of the same shape, grouped the same way (by day and status with the filtered
 * credential's, by credential and status with every one's). Streams are not in the rollup: a running
 * stream's charge is decided when it ends. Each counts as GET /v1/usage counts it (usage.ts,
 * sumCompletedUsage), so the days add up to that answer: a running stream, under `queued` (running now),
 * its reservation of one request and num_interactions; an ended one, under its status, what it was
 * charged: the request when anything was delivered and the records delivered (docs/streams.md). One range
 * of streams_period_idx.
 */
export const listDailyStreamUsage = async (connection: CommonQueryMethods, input: ListDailyUsageInput): Promise<readonly DailyUsageRow[]> => {
  const matches = credentialMatches(['charged', 'api_key_id'], input.credential);
  const total = (column: string) => sql.fragment`
    (CASE WHEN GROUPING(charged.day) = 0
      THEN coalesce(sum(${sql.identifier(['charged', column])}) FILTER (WHERE ${matches}), 0)
      ELSE sum(${sql.identifier(['charged', column])}) END)::int8
  `;
  return connection.any(sql.type(dailyUsageRowSchema)`
    WITH charged AS (
      SELECT (created_at AT TIME ZONE 'UTC')::date AS day, api_key_id,
        CASE WHEN status = 'running' THEN 'queued' ELSE status END AS status,
        1 AS runs,
        CASE WHEN status = 'running' THEN 1 ELSE coalesce(charged_requests, 0) END AS requests,
        CASE WHEN status = 'running' THEN num_interactions ELSE coalesce(charged_interactions, 0) END AS interactions,
        created_at
      FROM streams
      WHERE account_id = ${input.accountId} AND period_start = ${input.periodStart}
    )
    SELECT to_char(charged.day, 'YYYY-MM-DD') AS day, charged.api_key_id, api_keys.key_prefix, charged.status,
      ${total('runs')} AS runs, ${total('requests')} AS requests, ${total('interactions')} AS interactions,
      max(charged.created_at) AS last_run_at
    FROM charged
    LEFT JOIN api_keys ON api_keys.id = charged.api_key_id
    GROUP BY GROUPING SETS ((charged.day, charged.status), (charged.api_key_id, api_keys.key_prefix, charged.status))
  `);
};
