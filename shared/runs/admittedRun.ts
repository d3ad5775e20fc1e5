import { z } from 'zod';
import { runRecordSchema } from './runSpecification.ts';

/**
 * A run as admission records it: its specification's record, who asked (the account and the credential)
 * and the month its quota counts in. Everything its ledger row says but how it ended: the in-flight entry
 * holds it until the run settles (api/limits/inflightEntry.ts), and the row is this plus its settlement
 * (shared/db/queries/simulations.ts `LedgerRowInput`).
 */
export const admittedRunSchema = runRecordSchema.extend({
  accountId: z.string(),
  apiKeyId: z.string().nullable(),
  sessionId: z.string().nullable(),
  /** ISO timestamp: the first instant of the UTC month the run counts against. */
  periodStart: z.string(),
});

export type AdmittedRun = z.infer<typeof admittedRunSchema>;
