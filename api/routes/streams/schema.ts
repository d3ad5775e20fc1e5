import { z } from 'zod';
import { resolveEngineVersion } from '../../../shared/engine/index.ts';
import { EVENT_TIME_ENGINE_MAJOR } from '../../../shared/engine/RunTimingSpec.ts';
import { DISORDER_LIMITS, NO_DISORDER } from '../../../shared/streams/StreamDisorder.ts';
import { WEBHOOK_BATCH_LIMITS } from '../../../shared/streams/webhookBatchLimits.ts';
import type { ModelRunRequest } from '../../runs/ModelRunRequest.ts';
import type { RunRequest } from '../../runs/RunRequest.ts';
import { decodeRunCursor } from '../simulations/runCursor.ts';
import { resolveSimulationRequest, simulationRequestFields } from '../simulations/schema.ts';

const disorderSchema = z.strictObject({
  late_share: z.number().min(DISORDER_LIMITS.late_share.min).max(DISORDER_LIMITS.late_share.max).default(NO_DISORDER.late_share),
  max_delay_s: z.number().min(DISORDER_LIMITS.max_delay_s.min).max(DISORDER_LIMITS.max_delay_s.max).default(NO_DISORDER.max_delay_s),
  duplicate_share: z.number().min(DISORDER_LIMITS.duplicate_share.min).max(DISORDER_LIMITS.duplicate_share.max).default(NO_DISORDER.duplicate_share),
});

const sinkSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('sse') }),
  z.strictObject({
    type: z.literal('webhook'),
    url: z.url({ protocol: /^https?$/ }).max(2048),
    batch_max: z.int().min(WEBHOOK_BATCH_LIMITS.batch_max.min).max(WEBHOOK_BATCH_LIMITS.batch_max.max).default(WEBHOOK_BATCH_LIMITS.batch_max.default),
    batch_ms: z.int().min(WEBHOOK_BATCH_LIMITS.batch_ms.min).max(WEBHOOK_BATCH_LIMITS.batch_ms.max).default(WEBHOOK_BATCH_LIMITS.batch_ms.default),
  }),
]);

/** What POST /v1/streams asks for, validated; the seed is drawn at creation when absent. */
export interface StreamRequest {
  /**
   * The run the stream delivers, checked as POST /v1/simulations checks it (order `time`): a preset's
   * resolved, a model's only named until the account's models are read (api/streams/createStream.ts).
   */
  readonly run: RunRequest | ModelRunRequest;
  /** Whether start_time was given: otherwise it is the instant of creation, not the simulation's default. */
  readonly startTimeGiven: boolean;
  readonly speed: number;
  readonly disorder: z.output<typeof disorderSchema>;
  readonly sink: z.output<typeof sinkSchema>;
}

const fields = simulationRequestFields;

/**
 * POST /v1/streams body (docs/streams.md): a simulation request's fields, with their bounds and checks
 * (api/routes/simulations/schema.ts: `preset` or `model`, profile, scenario events and random events,
 * engine 4's timing), plus the stream's own. A stream is a time-ordered engine-4 run: an engine before 4
 * is refused first, alone, so the answer says why rather than listing what that engine lacks.
 */
export const createStreamSchema = z
  .strictObject({
    preset: fields.preset,
    model: fields.model,
    num_interactions: fields.num_interactions.describe('Records the stream delivers (duplicates aside); at most the plan maximum.'),
    seed: fields.seed.describe('Makes the stream reproducible; drawn and returned when absent.'),
    profile: fields.profile,
    engine_version: fields.engine_version.describe(`Engine ${EVENT_TIME_ENGINE_MAJOR} or later (the newest when absent): a major or an exact service_version.`),
    scenario: fields.scenario,
    population: fields.population.describe('Subjects live at once, 1–10,000 (default 100).'),
    start_time: fields.start_time.describe('ISO 8601 UTC: the first event time and the pacing origin; the instant of creation when absent.'),
    speed: z.number().min(0.01).max(100_000).default(1).describe('Event-time seconds per second of wall clock, 0.01–100,000.'),
    disorder: disorderSchema.optional(),
    sink: sinkSchema.default({ type: 'sse' }),
  })
  .transform((body, context): StreamRequest => {
    const serviceVersion = resolveEngineVersion(body.engine_version);
    if (serviceVersion !== undefined && Number(serviceVersion.split('.')[0]) < EVENT_TIME_ENGINE_MAJOR) {
      context.addIssue({ code: 'custom', path: ['engine_version'], message: `A stream needs engine ${EVENT_TIME_ENGINE_MAJOR} or later.` });
      return z.NEVER;
    }
    const { speed, disorder, sink, ...simulation } = body;
    const before = context.issues.length;
    // A stream delivers its records in event_time order: the simulation it equals is the `time`-ordered one.
    const run = resolveSimulationRequest({ ...simulation, order: 'time' }, context);
    if (context.issues.length > before) return z.NEVER;
    return { run, startTimeGiven: body.start_time !== undefined, speed, disorder: disorder ?? NO_DISORDER, sink };
  });

/** GET /v1/streams query: paged like the history. */
export const listStreamsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Streams per page, 1–100.'),
  cursor: z
    .string()
    .refine((value) => decodeRunCursor(value) !== undefined, 'Malformed cursor; pass next_cursor of the previous page as it is.')
    .optional(),
});

/** The Stream resource (docs/streams.md). */
export const streamSchema = z.object({
  id: z.uuid(),
  status: z.enum(['running', 'completed', 'cancelled', 'failed']),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  request: z.record(z.string(), z.unknown()),
  speed: z.number(),
  start_time: z.string(),
  num_interactions: z.int(),
  delivered: z.int(),
  sink: z.record(z.string(), z.unknown()),
  last_error: z.object({ code: z.string(), message: z.string(), at: z.string() }).nullable(),
  events_url: z.string(),
});

export type Stream = z.infer<typeof streamSchema>;
