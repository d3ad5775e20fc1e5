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
});

export const presetListSchema = z.array(presetSchema);

export type PresetResponse = z.infer<typeof presetSchema>;
