import { z } from 'zod';
import type { RunTimingSpec } from './RunTimingSpec.ts';

/**
 * Engine 4's echoed run inputs as they travel in the job, the ledger's jsonb and the idempotency record
 * (the request's own fields are checked in api/routes/simulations/schema.ts). Parsed keys come out in
 * this order whatever order jsonb kept them in.
 */
export const runTimingFields = {
  start_time: z.string(),
  order: z.enum(['sequence', 'time']),
  population: z.int().min(1).max(10_000),
} as const;

export const runTimingSchema: z.ZodType<RunTimingSpec, unknown> = z.strictObject(runTimingFields);
