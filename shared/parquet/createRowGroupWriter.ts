import type { ColumnChunk } from 'hyparquet';
import type { ColumnSource, ParquetWriter } from 'hyparquet-writer';
import { writeColumn } from 'hyparquet-writer/src/column.js';
import { encodeNestedValues } from 'hyparquet-writer/src/dremel.js';
import { schemaPathResolver } from 'hyparquet-writer/src/schema.js';
import type { ColumnEncoder } from 'hyparquet-writer/src/types.js';
import { writePlainInt64Column } from './writePlainInt64Column.ts';

/** ParquetWriter.write's default page size (1 MiB): the pages the files have always had. */
const PAGE_SIZE = 1_048_576;

/** Writes `columns` as the file's next row group: every column holds the group's rows, no more. */
export type RowGroupWriter = (columns: readonly ColumnSource[]) => void;

/**
 * ParquetWriter.write for one row group of flat columns (its steps, its bytes, its footer entries), except
 * that a REQUIRED INT64 column given PLAIN as a BigInt64Array is written by writePlainInt64Column.ts, which
 * makes no bigint per value to keep (docs/architecture.md#a-workers-memory). The writer's own default
 * options stand: statistics as the writer's, no column index, an offset index, no bloom filter.
 * test/parquet/rowGroupWriter.test.ts checks the bytes against ParquetWriter.write.
 */
export const createRowGroupWriter = (parquet: ParquetWriter): RowGroupWriter => {
  const resolveSchemaPath = schemaPathResolver(parquet.schema);
  return (sources) => {
    const { writer } = parquet;
    const rows = sources[0]?.data.length ?? 0;
    const groupStartOffset = writer.offset;
    const columns: ColumnChunk[] = [];
    for (const { name, data, encoding } of sources) {
      if (data.length !== rows) throw new Error('parquet columns must have the same length');
      const columnPath = resolveSchemaPath([name]);
      const leaf = columnPath.at(-1)!;
      if (leaf.children.length > 0) throw new Error(`parquet column ${name} is not flat`);
      const { element } = leaf;
      const column: ColumnEncoder = {
        columnName: name,
        element,
        schemaPath: columnPath.map((node) => node.element),
        codec: parquet.codec,
        compressors: parquet.compressors,
        stats: parquet.statistics,
        ...(parquet.statisticsTruncateLength === undefined ? {} : { statisticsTruncateLength: parquet.statisticsTruncateLength }),
        pageSize: PAGE_SIZE,
        columnIndex: false,
        offsetIndex: true,
        ...(encoding === undefined ? {} : { encoding }),
      };
      const lean = data instanceof BigInt64Array && encoding === 'PLAIN' && !parquet.statistics && element.type === 'INT64' && element.repetition_type === 'REQUIRED';
      const result = lean ? writePlainInt64Column(writer, column, data) : writeColumn({ writer, column, pageData: encodeNestedValues(columnPath, data) });
      columns.push(result.chunk);
      parquet.pendingIndexes.push(result);
    }
    let totalByteSize = 0n;
    for (const { meta_data } of columns) totalByteSize += meta_data?.total_uncompressed_size ?? 0n;
    parquet.num_rows += BigInt(rows);
    parquet.row_groups.push({
      columns,
      total_byte_size: totalByteSize,
      num_rows: BigInt(rows),
      total_compressed_size: BigInt(writer.offset - groupStartOffset),
    });
  };
};
