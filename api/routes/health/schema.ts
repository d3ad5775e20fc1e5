import { z } from 'zod';

export const healthResponseSchema = z.object({
  status: z.literal('ok'),
  version: z.string(),
});

const dependencyStatus = z.enum(['connected', 'disconnected']);

export const readinessResponseSchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  database: dependencyStatus,
  redis: dependencyStatus,
  version: z.string(),
});

export type ReadinessResponse = z.infer<typeof readinessResponseSchema>;
