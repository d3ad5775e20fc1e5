import { z } from 'zod';
import { OUTPUT_FORMATS } from '../../../shared/engine/index.ts';

/** POST /v1/simulations/{simulation_id}/links (docs/bulk-data.md#download-links). */
export const createLinkBodySchema = z.strictObject({
  format: z.enum(OUTPUT_FORMATS),
  /** Seconds the link serves the records, 60 to 604800 (a week); an hour by default. */
  expires_in: z.number().int().min(60).max(604_800).default(3600),
});

export const linkCreatedSchema = z.object({
  /** Under `/v1/downloads/`: serves the run's records in `format` to anyone who has it, until `expires_at`. */
  url: z.url(),
  format: z.enum(OUTPUT_FORMATS),
  expires_at: z.iso.datetime(),
});

export type LinkCreated = z.infer<typeof linkCreatedSchema>;
