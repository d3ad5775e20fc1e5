import { z } from 'zod';

export const accountResponseSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  display_name: z.string(),
  is_active: z.boolean(),
  created_at: z.iso.datetime(),
  /** Linked identity providers, each once, sorted. */
  authentication_methods: z.array(z.string()),
  plan: z.string(),
});

export type AccountResponse = z.infer<typeof accountResponseSchema>;
