import { engineModelOf } from '../engine/engineModelOf.ts';
import type { RunInput } from '../engine/presetTypes.ts';
import type { ParquetField } from './parquetSchema.ts';
import { ROW_GROUP_ROWS } from './rowGroupSizes.ts';

/** Page and column-chunk headers of one column in one row group, and the footer's entry for it. */
const COLUMN_CHUNK_OVERHEAD = 256;
const FILE_OVERHEAD = 4096;

/**
 * An upper bound of a run's Parquet bytes: every value PLAIN (8 bytes a number, a length and the longest
 * value a string), as if no dictionary or delta encoding saved anything. Decides, like
 * estimateRecordBytes for the text formats, whether a run needs streaming at all.
 */
export const estimateParquetBytes = (input: RunInput): number => {
  const { model } = engineModelOf(input);
  const fields: readonly ParquetField[] = model.fields;
  const rowBytes = fields.reduce((sum, field) => sum + (field.kind === 'enum' ? 4 + Math.max(0, ...field.values.map((value) => Buffer.byteLength(value))) : 8) + 1, 0);
  const rowGroups = Math.ceil(input.numInteractions / ROW_GROUP_ROWS) + 1;
  return FILE_OVERHEAD + input.numInteractions * rowBytes + rowGroups * fields.length * COLUMN_CHUNK_OVERHEAD;
};
