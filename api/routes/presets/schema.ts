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
});

export const presetListSchema = z.array(presetSchema);

export type PresetResponse = z.infer<typeof presetSchema>;

/** GET /v1/presets/{preset}/fidelity (DECISIONS "Fidelity"). */
export const presetFidelitySchema = z.object({
  preset: z.string(),
  service_version: z.string().describe('The engine version the facts were measured on: the newest.'),
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

