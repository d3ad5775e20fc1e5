import type { OffsetIndex } from 'hyparquet';
import { getPageBoundaries } from 'hyparquet-writer/src/column.js';
import { writeDataPageV2 } from 'hyparquet-writer/src/datapage.js';
import type { ColumnEncoder, PageIndexes, Writer } from 'hyparquet-writer/src/types.js';

/**
 * A REQUIRED INT64 column written PLAIN (engine 4's event_time always, an integer column whose group holds
 * one value): the bytes and the footer entry of hyparquet-writer's writeColumn for such a column without
 * statistics, but read straight from the BigInt64Array. writeColumn copies the values into an array of
 * new bigints first when the column is a TIMESTAMP (its `unconvert`), 65,536 of them a row group, alive
 * while the column is encoded: the most of what a Parquet run leaves for the engine thread's old
 * generation (docs/architecture.md#a-workers-memory). test/parquet/rowGroupWriter.test.ts checks it
 * against ParquetWriter.write.
 */
export const writePlainInt64Column = (writer: Writer, column: ColumnEncoder, values: BigInt64Array): PageIndexes => {
  const offsetStart = writer.offset;
  let uncompressedSize = 0;
  const pages = getPageBoundaries(values, 'INT64', undefined, column.pageSize);
  const dataPageOffset = BigInt(writer.offset);
  const offsetIndex: OffsetIndex | undefined = column.offsetIndex && pages.length > 1 ? { page_locations: [] } : undefined;
  for (const { start, end } of pages) {
    const pageOffset = writer.offset;
    uncompressedSize += writeDataPageV2({
      writer,
      column,
      encoding: 'PLAIN',
      pageData: { values: values.subarray(start, end), definitionLevels: [], repetitionLevels: [], maxDefinitionLevel: 0 },
    });
    offsetIndex?.page_locations.push({ offset: BigInt(pageOffset), compressed_page_size: writer.offset - pageOffset, first_row_index: BigInt(start) });
  }
  return {
    chunk: {
      meta_data: {
        type: 'INT64',
        encodings: ['PLAIN'],
        path_in_schema: column.schemaPath.slice(1).map((element) => element.name),
        codec: column.codec,
        num_values: BigInt(values.length),
        total_compressed_size: BigInt(writer.offset - offsetStart),
        total_uncompressed_size: BigInt(uncompressedSize),
        data_page_offset: dataPageOffset,
      },
      file_offset: BigInt(offsetStart),
    },
    ...(offsetIndex === undefined ? {} : { offsetIndex }),
  };
};
