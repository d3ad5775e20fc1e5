import { z } from 'zod';
import { simulationStatusSchema } from '../../../shared/db/queries/simulations.ts';

/**
 * GET /v1/usage/daily query. Unknown parameters are refused like unknown body fields, so a misspelt filter
 * never silently reports every credential.
 */
export const dailyUsageQuerySchema = z.strictObject({
  period: z
    .string()
    // From 2000: Date.UTC reads years below 100 as 19xx, and no ledger is older.
    .regex(/^(?:2\d{3}|[3-9]\d{3})-(?:0[1-9]|1[0-2])$/, 'A calendar month as YYYY-MM, from 2000-01.')
    .optional()
    .describe('The calendar month (UTC) as `YYYY-MM`, the current one or an earlier one; default the current month.'),
  // One pattern rather than a union, so the OpenAPI document and the SDK read it as one string.
  credential: z
    .string()
    .regex(/^(?:session|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i, '`session` or the id (UUID) of an API key.')
    .optional()
    .describe('Only the runs made in browser sessions (`session`) or with this API key (its id) count in `days` and `totals`.'),
});


const countsSchema = z.strictObject({
  runs: z.int().min(0).describe('Runs in this status (ledger rows), counted or not.'),
  requests: z.int().min(0).describe('Of those, the runs that count a request against the monthly quota.'),
  interactions: z.int().min(0).describe('The interactions they count against the monthly quota.'),
});

/** Every status, always present, so a client never tells "none" from "not reported". */
const byStatusSchema = z
  .strictObject(Object.fromEntries(simulationStatusSchema.options.map((status) => [status, countsSchema])) as Record<
    z.infer<typeof simulationStatusSchema>,
    typeof countsSchema
  >)
  .describe(
    '`completed` runs count whole; `cancelled` ones (the client left) count only when their first bytes had left, for the interactions made; `failed` and `timed_out` count nothing; `queued` are running now. Live streams count here too, as GET /v1/usage counts them: a running stream under `queued` with its reservation (one request and its `num_interactions`), an ended one under its status with what it was charged (the request when anything was delivered, and the records delivered).',
  );

const usageCountsShape = {
  runs: z.int().min(0).describe('Every run and live stream, in any status.'),
  requests: z.int().min(0).describe('Requests counted against the monthly quota (as GET /v1/usage counts them).'),
  interactions: z.int().min(0).describe('Interactions counted against the monthly quota.'),
  by_status: byStatusSchema,
};

const usageCredentialSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('api_key'), api_key_id: z.uuid(), key_prefix: z.string() }),
  z.strictObject({ type: z.literal('session') }),
]);

export const dailyUsageResponseSchema = z.strictObject({
  period: z.strictObject({ start: z.iso.datetime(), end: z.iso.datetime() }),
  totals: z.strictObject(usageCountsShape).describe('The sum of `days`.'),
  days: z
    .array(z.strictObject({ date: z.iso.date().describe('A UTC day.'), ...usageCountsShape }))
    .describe('One entry per UTC day of the period up to today (the whole month for an earlier period), oldest first.'),
  credentials: z
    .array(
      z.strictObject({
        credential: usageCredentialSchema,
        ...usageCountsShape,
        last_run_at: z.iso.datetime().nullable().describe('When its latest run of the period was made.'),
      }),
    )
    .describe('Each credential that made a run in the period (every one, whatever `credential` filters), most runs first.'),
});

export type DailyUsageResponse = z.infer<typeof dailyUsageResponseSchema>;
export type UsageCounts = DailyUsageResponse['totals'];
