import { z } from 'zod';

export const usageResponseSchema = z.object({
  plan: z.object({
    name: z.string(),
    monthly_requests: z.number().int(),
    monthly_interactions: z.number().int(),
    max_interactions_per_request: z.number().int(),
    requests_per_minute: z.number().int(),
    max_concurrent_simulations: z.number().int(),
  }),
  period: z.object({ start: z.string(), end: z.string() }),
  usage: z.object({ requests: z.number().int(), interactions: z.number().int() }),
  remaining: z.object({ requests: z.number().int().min(0), interactions: z.number().int().min(0) }),
});

export type UsageResponse = z.infer<typeof usageResponseSchema>;
