import { type FileMetaData, parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';

export interface ParquetBody {
  readonly metadata: FileMetaData;
  /** Rows in each row group, in order. */
  readonly rowGroups: readonly number[];
  /** Each column's physical type and repetition, by name, in file order. */
  readonly columns: readonly { readonly name: string; readonly type: string | undefined; readonly repetition: string | undefined; readonly convertedType: string | undefined }[];
  /**
   * Every row as read back; INT64 values as numbers (checked to be safe integers), and engine 4's
   * event_time (an INT64 TIMESTAMP(MILLIS, UTC), which hyparquet reads as a Date) as the ISO 8601 text
   * JSON prints, so a row compares with the JSON's record.
   */
  readonly records: readonly Record<string, unknown>[];
}

/**
 * Reads a whole Parquet body with hyparquet, a reader written apart from our writer's code, so the test
 * compares what a data user's tool sees with the JSON of the same run.
 */
export const readParquet = async (bytes: Uint8Array): Promise<ParquetBody> => {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file);
  const rows = await parquetReadObjects({ file, metadata, rowFormat: 'object' });
  const records = rows.map((row) => {
    const record: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(row)) {
      if (typeof value === 'bigint') {
        if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) throw new Error(`${name}: ${value} is not a safe integer`);
        record[name] = Number(value);
      } else if (value instanceof Date) {
        record[name] = value.toISOString();
      } else {
        record[name] = value;
      }
    }
    return record;
  });
  const columns = parquetSchema(metadata).children.map((child) => ({
    name: child.element.name,
    type: child.element.type,
    repetition: child.element.repetition_type,
    convertedType: child.element.converted_type,
  }));
  return { metadata, rowGroups: metadata.row_groups.map((group) => Number(group.num_rows)), columns, records };
};
