import { z } from 'zod';
import { resolveEngineVersion, resolvePreset } from '../../../shared/engine/index.ts';
import { engineModels } from '../../../shared/engine/engineVersions.ts';
import { randomEventsRoom, SCENARIO_ENGINE_MAJOR, SCENARIO_EVENT_TYPES } from '../../../shared/engine/scenario.ts';
import { scenarioResultSchema, scenarioSchema } from '../../../shared/engine/scenarioSchema.ts';
import { POPULATION_LIMITS } from '../../../shared/engine/RunTimingSpec.ts';
import { canonicalScenario, resolveRunTiming } from '../../runs/resolveRunTiming.ts';
import { runTimingFields } from '../../../shared/engine/runTimingSchema.ts';
import type { RunRequest } from '../../runs/RunRequest.ts';
import { MODEL_REFERENCE, type ModelRunRequest } from '../../runs/ModelRunRequest.ts';
import { modelReferenceSchema } from './modelReferenceSchema.ts';

// The alias is resolved here, once: everything after validation (admission, ledger, job, headers,
// idempotent record) sees only the canonical preset.
const presetField = z
  .string()
  .transform((name, context) => {
    const preset = resolvePreset(name);
    if (preset === undefined) {
      context.addIssue({ code: 'custom', message: 'Unknown preset; see GET /v1/presets.' });
      return z.NEVER;
    }
    return preset;
  })
  .describe('Preset name, or the alias `mobile`.');

const modelField = z
  .string()
  .regex(MODEL_REFERENCE, 'A model name, or `name@version` (version 1, 2, …); see GET /v1/models.')
  .describe("One of the account's models: its name (the latest version) or `name@version`. Exactly one of `preset` and `model`.");

// The body's fields, apart from what they resolve to: POST /v1/streams takes the same ones
// (api/routes/streams/schema.ts, docs/streams.md), checked by the same resolveSimulationRequest.
const simulationRequestBody = z.strictObject({
  preset: presetField.optional(),
  model: modelField.optional(),
  num_interactions: z.int().min(1).describe('Number of interactions to generate; at most the plan maximum.'),
  seed: z.int().min(0).max(4_294_967_295).optional().describe('Makes the run reproducible; drawn and returned when absent.'),
  profile: z.string().optional().describe("One of the preset's supported_profiles; its default_profile when absent."),
  engine_version: z
    .string()
    .optional()
    .describe(
      "The engine to run: a major (\"1\", \"2\") or an exact service_version the service has (see the preset's engine_versions); the newest when absent.",
    ),
  scenario: scenarioSchema.optional(),
  start_time: z
    .string()
    .optional()
    .describe('Engine 4 on: ISO 8601 UTC instant (`2026-01-01T00:00:00.000Z`; `Z` required, milliseconds optional) no record is earlier than; 2026-01-01T00:00:00.000Z when absent.'),
  order: z
    .enum(['sequence', 'time'])
    .optional()
    .describe('Engine 4 on: `sequence` (default, a sequence after another) or `time` (a population of subjects merged in `event_time` order, ties by `sequence_id`).'),
  population: z
    .int()
    .min(POPULATION_LIMITS.min)
    .max(POPULATION_LIMITS.max)
    .optional()
    .describe('Engine 4 on: how many subjects are live at once, 1–10,000 (default 100); when one\'s sequence ends the next `sequence_id` arrives.'),
});

/** The fields of a simulation request, each with its bounds and description. */
export const simulationRequestFields = simulationRequestBody.shape;

/**
 * A simulation request's fields resolved into the request they ask for (docs/api.md):
 * the canonical preset, the profile to use and the exact engine, the scenario's event types and random
 * events checked against the preset, engine 4's timing. A `model` is only named here: the caller resolves
 * it against the account's models (api/runs/resolveModelRequest.ts), which checks profile, engine
 * and scenario the same way. Problems are added to `context` at their paths.
 */
export const resolveSimulationRequest = (body: z.output<typeof simulationRequestBody>, context: z.RefinementCtx): RunRequest | ModelRunRequest => {
  const { preset } = body;
  if (preset === undefined || body.model !== undefined) {
    if (preset !== undefined || body.model === undefined) {
      context.addIssue({
        code: 'custom',
        path: [preset === undefined ? 'preset' : 'model'],
        message: 'Give exactly one of `preset` (a preset name) and `model` (one of your models).',
      });
      return z.NEVER;
    }
    const [, name = '', version] = MODEL_REFERENCE.exec(body.model) ?? [];
    return {
      kind: 'model',
      name,
      version: version === undefined ? undefined : Number(version),
      profile: body.profile,
      seed: body.seed,
      numInteractions: body.num_interactions,
      engine: body.engine_version,
      scenario: body.scenario,
      startTime: body.start_time,
      order: body.order,
      population: body.population,
    };
  }
  if (body.profile !== undefined && !preset.supported_profiles.includes(body.profile)) {
    context.addIssue({
      code: 'custom',
      path: ['profile'],
      message: `Unknown profile for ${preset.name}; one of: ${preset.supported_profiles.join(', ')}.`,
    });
  }
  const serviceVersion = resolveEngineVersion(body.engine_version);
  if (serviceVersion === undefined || !preset.engine_versions.includes(serviceVersion)) {
    context.addIssue({
      code: 'custom',
      path: ['engine_version'],
      message: `Unknown engine version; a major or one of: ${preset.engine_versions.join(', ')}.`,
    });
    return z.NEVER;
  }
  const { scenario } = body;
  if (scenario !== undefined) {
    if (Number(serviceVersion.split('.')[0]) < SCENARIO_ENGINE_MAJOR) {
      context.addIssue({
        code: 'custom',
        path: ['scenario'],
        message: `Scenarios need engine ${SCENARIO_ENGINE_MAJOR} or later; this request runs engine ${serviceVersion}.`,
      });
    }
    const types = SCENARIO_EVENT_TYPES[preset.name];
    const unknownType = (path: (string | number)[]): void => {
      context.addIssue({ code: 'custom', path, message: `Unknown scenario event type for ${preset.name}; one of: ${types.join(', ')}.` });
    };
    scenario.events?.forEach((event, index) => {
      if (!types.includes(event.type)) unknownType(['scenario', 'events', index, 'type']);
    });
    const { random } = scenario;
    if (random !== undefined) {
      random.types.forEach((type, index) => {
        if (!types.includes(type)) unknownType(['scenario', 'random', 'types', index]);
      });
      // Random events are spread over the model's episode: the most a sequence can get must fit in it.
      const horizon = engineModels(serviceVersion)?.[preset.name].episodeLength;
      const room = horizon === undefined ? undefined : randomEventsRoom(random, horizon);
      if (room !== undefined) context.addIssue({ code: 'custom', path: ['scenario', 'random'], message: room });
    }
  }
  const { timing, issues } = resolveRunTiming(body, scenario, serviceVersion);
  for (const issue of issues) context.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return {
    preset: preset.name,
    profile: body.profile ?? preset.default_profile,
    seed: body.seed,
    numInteractions: body.num_interactions,
    serviceVersion,
    // at_time echoed canonical (milliseconds), as records print instants.
    scenario: canonicalScenario(scenario),
    ...(timing === undefined ? {} : { timing }),
  };
};

/**
 * POST /v1/simulations body, parsed into the request it asks for. `num_interactions` is any positive safe
 * integer here: its upper bound is the caller's plan maximum, refused with 403 by the limits, not 422.
 */
export const simulationRequestSchema = simulationRequestBody.transform(resolveSimulationRequest);


// Engine 3's `scenario_event` is null outside an event.
const recordSchema = z.record(z.string(), z.union([z.number(), z.string(), z.null()]));

/** The Simulation result, as the worker writes it (the API sends those bytes without parsing them). */
export const simulationResultSchema = z.strictObject({
  simulation_id: z.uuid(),
  preset: z.string().describe("The canonical preset (`education`, `finance`, `healthcare`, `mobile_app`), or the model's name for a model run."),
  model: modelReferenceSchema.nullable().describe('The model version the run was made from; null for a preset run.'),
  profile: z.string(),
  num_interactions: z.int().min(1),
  seed: z.int().min(0).max(4_294_967_295),
  start_time: z.string().optional().describe('Engine 4 on: the run\'s start_time, canonical (milliseconds, `Z`); absent for engines before 4.'),
  order: runTimingFields.order.optional().describe('Engine 4 on: the run\'s order; absent for engines before 4.'),
  population: runTimingFields.population.optional().describe('Engine 4 on: the run\'s population; absent for engines before 4.'),
  data: z.array(recordSchema),
  scenario: scenarioResultSchema
    .nullable()
    .describe(
      "The request's scenario as it was validated (defaults filled in) with `placed` and `unplaced`; null when it had none. Printed after `data`: what was placed is known once the records are.",
    ),
  metadata: z.strictObject({
    service_version: z.string().regex(/^\d+\.\d+\.\d+$/),
    api_version: z.string().regex(/^\d+\.\d+\.\d+$/),
    compute_ms: z.int().min(0),
    reproducible: z.boolean(),
  }),
});
