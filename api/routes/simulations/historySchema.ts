import { z } from 'zod';
import { resolvePreset } from '../../../shared/engine/index.ts';
import { simulationStatusSchema } from '../../../shared/db/queries/simulations.ts';
import { scenarioSchema } from '../../../shared/engine/scenarioSchema.ts';
import { decodeRunCursor } from './runCursor.ts';
import { modelReferenceSchema } from './modelReferenceSchema.ts';

/**
 * GET /v1/simulations query (docs/api.md#run-history-and-replay). Unknown parameters are refused like
 * unknown body fields, so a misspelt filter never silently lists everything.
 */
export const listSimulationsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Runs per page, 1–100.'),
  cursor: z
    .string()
    .refine((value) => decodeRunCursor(value) !== undefined, 'Malformed cursor; pass next_cursor of the previous page as it is.')
    .optional()
    .describe("The previous page's `next_cursor`, as it is."),
  preset: z
    .string()
    .refine((value) => resolvePreset(value) !== undefined, 'Unknown preset; see GET /v1/presets.')
    .optional()
    .describe('Only runs of this preset (a name or the alias `mobile`).'),
  status: simulationStatusSchema.optional().describe('Only runs in this status (`cancelled`: the client left or stopped reading).'),
});

const credentialSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('api_key'), api_key_id: z.uuid(), key_prefix: z.string() }),
  z.strictObject({ type: z.literal('session') }),
]);

/** One run of the history: its inputs, how it ended, the engine that made it and the credential used. */
export const runSchema = z.strictObject({
  simulation_id: z.uuid(),
  preset: z.string().describe("The canonical preset (`education`, `finance`, `healthcare`, `mobile_app`), or the model's name for a model run."),
  model: modelReferenceSchema.nullable().describe('The model version the run was made from (its replay runs that version, even after the model was deleted); null for a preset run.'),
  profile: z.string(),
  seed: z.int().min(0).max(4_294_967_295),
  num_interactions: z.int().min(1),
  status: simulationStatusSchema.describe(
    'How the run ended: `completed`; `failed` or `timed_out`, faults of the service, given back to the quota; `cancelled`, its client left or stopped reading (given back if it left before the first bytes, else charged for what was made); `queued` while it runs.',
  ),
  created_at: z.iso.datetime(),
  finished_at: z.iso.datetime().nullable(),
  compute_ms: z.int().min(0).nullable(),
  service_version: z.string().regex(/^\d+\.\d+\.\d+$/),
  scenario: scenarioSchema.nullable().describe("The run's engine-3 scenario as validated (each event's `intensity` filled in); null when it had none. A replay runs it again."),
  start_time: z.string().nullable().describe("Engine 4 on: the run's start_time (canonical, milliseconds and `Z`); null for engines before 4."),
  order: z.enum(['sequence', 'time']).nullable().describe("Engine 4 on: the run's order; null for engines before 4."),
  population: z.int().min(1).max(10_000).nullable().describe("Engine 4 on: the run's population; null for engines before 4."),
  credential: credentialSchema,
});

export const runListSchema = z.strictObject({
  data: z.array(runSchema),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
});

export type Run = z.infer<typeof runSchema>;
export type RunList = z.infer<typeof runListSchema>;
