import { z } from 'zod';

/** A model version's identity, as results, history Runs and idempotency records carry it. */
export const modelReferenceSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/),
    version: z.int().min(1),
    digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  })
  .describe('A model version: its name, its version number and the digest of its canonical definition.');
