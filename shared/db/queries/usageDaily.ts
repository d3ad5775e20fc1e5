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

/**
 * A period's usage by day and by credential, each split by status, in one statement over one index range
 * of the rollup (at most days x credentials x statuses rows, however many runs they count). The day
 * groups count only the filtered credential's runs; the credential groups always count every credential.
 */
export const listDailyUsage = async (connection: CommonQueryMethods, input: ListDailyUsageInput): Promise<readonly DailyUsageRow[]> =>
  connection.any(sql.type(dailyUsageRowSchema)`${dailyUsageStatement(input)}`);

/** The statement alone, so `npm run bench:usage` can EXPLAIN ANALYZE exactly what is served. */
export const dailyUsageStatement = (input: ListDailyUsageInput): FragmentSqlToken => {
  const matches =
    input.credential === undefined
      ? sql.fragment`true`
      : input.credential.type === 'session'
        ? sql.fragment`usage_daily.api_key_id IS NULL`
        : sql.fragment`usage_daily.api_key_id IS NOT DISTINCT FROM ${input.credential.apiKeyId}::uuid`;
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
