import { z } from 'zod';

export const presetSchema = z.object({
  name: z.string(),
  description: z.string(),
  available: z.boolean(),
  default_profile: z.string(),
  supported_profiles: z.array(z.string()),
  supported_states: z.array(z.string()),
  aliases: z.array(z.string()),
  record_fields: z.array(z.object({ name: z.string(), type: z.enum(['integer', 'number', 'string']), description: z.string() })),
  state_transitions: z.record(z.string(), z.array(z.string())),
  engine_versions: z.array(z.string()).describe('The engine versions (service_version) that can serve this preset, newest first.'),
  scenario_events: z
    .array(
      z.object({
        type: z.string().describe('The event type, the value of a scenario event\'s `type` and of records\' `scenario_event`.'),
        description: z.string().describe('What the event is and how the engine models it.'),
        effect: z.string().describe('The measurable effect inside the event\'s window against the same run without it.'),
      }),
    )
    .describe('The scenario events engine 3 and later play for this preset (`scenario.events[].type`).'),
  record_fields_by_engine: z
    .record(z.string(), z.array(z.string()))
    .describe('Each engine version\'s record field names, in emission order; `record_fields` describes the newest.'),
});

export const presetListSchema = z.array(presetSchema);

export type PresetResponse = z.infer<typeof presetSchema>;

/** GET /v1/presets/{preset}/fidelity's query: which engine's report (docs/api.md#fidelity). */
export const presetFidelityQuerySchema = z.strictObject({
  engine_version: z
    .string()
    .optional()
    .describe('The engine whose report to serve: a major ("2") or an exact version the preset lists in `engine_versions`; the newest when absent.'),
});

/** GET /v1/presets/{preset}/fidelity (docs/decisions.md#fidelity). */
export const presetFidelitySchema = z.object({
  preset: z.string(),
  service_version: z.string().describe('The engine version the facts were measured on: the one asked for with `engine_version`, else the newest.'),
  sample: z
    .array(z.object({ profile: z.string(), seed: z.int(), num_interactions: z.int() }))
    .describe('The fixed-seed sample measured for each profile.'),
  facts: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      profile: z.string(),
      target: z.string().describe('The threshold the fact must meet, e.g. `≥ 3`.'),
      value: z.number().describe('The measured value (4 significant digits).'),
      holds: z.boolean(),
    }),
  ),
});

