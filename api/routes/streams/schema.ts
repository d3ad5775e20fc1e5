import { z } from 'zod';
import type { PRESET_NAMES} from '../../../shared/engine/index.ts';
import { resolveEngineVersion, resolvePreset } from '../../../shared/engine/index.ts';
import { scenarioSchema } from '../../../shared/engine/scenarioSchema.ts';
import { parseTimestamp } from '../../../shared/engine/parseTimestamp.ts';
import { EVENT_TIME_ENGINE_MAJOR, POPULATION_LIMITS } from '../../../shared/engine/RunTimingSpec.ts';
import { SCENARIO_EVENT_TYPES } from '../../../shared/engine/scenario.ts';
import { DISORDER_LIMITS, NO_DISORDER } from '../../../shared/streams/StreamDisorder.ts';
import { WEBHOOK_BATCH_LIMITS } from '../../../shared/streams/webhookBatchLimits.ts';
import { decodeRunCursor } from '../simulations/runCursor.ts';

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
  readonly preset: (typeof PRESET_NAMES)[number];
  readonly profile: string;
  readonly seed: number | undefined;
  readonly numInteractions: number;
  readonly serviceVersion: string;
  readonly scenario: z.output<typeof scenarioSchema> | null;
  readonly population: number;
  /** ms since the epoch, or undefined: the instant of creation. */
  readonly startTime: number | undefined;
  readonly speed: number;
  readonly disorder: z.output<typeof disorderSchema>;
  readonly sink: z.output<typeof sinkSchema>;
}

/** POST /v1/streams body (docs/streams.md#creating-one): a simulation request's fields plus the stream's own. */
export const createStreamSchema = z
  .strictObject({
    preset: z.string().describe('Preset name, or the alias `mobile`.'),
    num_interactions: z.int().min(1).describe('Records the stream delivers (duplicates aside); at most the plan maximum.'),
    seed: z.int().min(0).max(4_294_967_295).optional().describe('Makes the stream reproducible; drawn and returned when absent.'),
    profile: z.string().optional(),
    engine_version: z.string().optional().describe('Engine 4 or later (the newest when absent).'),
    scenario: scenarioSchema.optional(),
    population: z.int().min(POPULATION_LIMITS.min).max(POPULATION_LIMITS.max).optional().describe('Subjects live at once (default 100).'),
    start_time: z.string().optional().describe('ISO 8601 UTC: the first event time and the pacing origin; the instant of creation when absent.'),
    speed: z.number().min(0.01).max(100_000).default(1).describe('Event-time seconds per second of wall clock, 0.01–100,000.'),
    disorder: disorderSchema.optional(),
    sink: sinkSchema.default({ type: 'sse' }),
  })
  .transform((body, context): StreamRequest => {
    const preset = resolvePreset(body.preset);
    if (preset === undefined) {
      context.addIssue({ code: 'custom', path: ['preset'], message: 'Unknown preset; see GET /v1/presets.' });
      return z.NEVER;
    }
    if (body.profile !== undefined && !preset.supported_profiles.includes(body.profile)) {
      context.addIssue({ code: 'custom', path: ['profile'], message: `Unknown profile for ${preset.name}; one of: ${preset.supported_profiles.join(', ')}.` });
    }
    const serviceVersion = resolveEngineVersion(body.engine_version);
    if (serviceVersion === undefined || !preset.engine_versions.includes(serviceVersion) || Number(serviceVersion.split('.')[0]) < EVENT_TIME_ENGINE_MAJOR) {
      context.addIssue({ code: 'custom', path: ['engine_version'], message: `A stream needs engine ${EVENT_TIME_ENGINE_MAJOR} or later.` });
      return z.NEVER;
    }
    const types = SCENARIO_EVENT_TYPES[preset.name];
    (body.scenario?.events ?? []).forEach((event, index) => {
      if (!types.includes(event.type)) {
        context.addIssue({ code: 'custom', path: ['scenario', 'events', index, 'type'], message: `Unknown scenario event type for ${preset.name}; one of: ${types.join(', ')}.` });
      }
    });
    let startTime: number | undefined;
    if (body.start_time !== undefined) {
      startTime = parseTimestamp(body.start_time);
      if (startTime === undefined) {
        context.addIssue({ code: 'custom', path: ['start_time'], message: 'Expected an ISO 8601 UTC instant like 2026-01-01T00:00:00.000Z (Z required).' });
      }
    }
    return {
      preset: preset.name,
      profile: body.profile ?? preset.default_profile,
      seed: body.seed,
      numInteractions: body.num_interactions,
      serviceVersion,
      scenario: body.scenario ?? null,
      population: body.population ?? 100,
      startTime,
      speed: body.speed,
      disorder: body.disorder ?? NO_DISORDER,
      sink: body.sink,
    };
  });

/** GET /v1/streams query: paged like the history. */
export const listStreamsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Streams per page, 1–100.'),
  cursor: z
    .string()
    .refine((value) => decodeRunCursor(value) !== undefined, 'Malformed cursor; pass next_cursor of the previous page as it is.')
    .optional(),
});

/** The Stream resource (docs/streams.md#creating-one). */
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
