import { z } from 'zod';
import { DATASET_LAYOUTS } from '../../datasets/datasetLayouts.ts';

/** GET /v1/simulations/{simulation_id}/dataset's query (docs/datasets.md#2-the-archive). */
export const datasetQuerySchema = z
  .strictObject({
    layout: z.enum(DATASET_LAYOUTS).describe('`timeeval`: test and matched train files per sequence and TimeEval\'s registry; `nab`: NAB\'s data and label files.'),
    field: z
      .string()
      .optional()
      .describe("`nab` only: the numeric record field NAB's `value` column holds; the preset's first numeric field when absent."),
  })
  .refine((query) => query.field === undefined || query.layout === 'nab', { error: 'Only the nab layout takes a field.', path: ['field'] });

export type DatasetQuery = z.infer<typeof datasetQuerySchema>;
