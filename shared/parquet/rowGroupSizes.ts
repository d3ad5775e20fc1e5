/** Rows in every row group but the first: the most docs/bulk-data.md#what-the-file-holds allows. */
export const ROW_GROUP_ROWS = 65_536;

/**
 * Rows in the first row group: small, so a streamed file's first bytes (the magic and a whole first row
 * group) leave after a few milliseconds of the engine, not after a full group.
 */
export const FIRST_ROW_GROUP_ROWS = 256;

/**
 * The row count of each row group of a run of `count` records, in order. A fixed function of the count
 * alone, so the file's bytes are too, however it is cut into chunks.
 */
export function* rowGroupSizes(count: number): Generator<number> {
  let left = count;
  let size = FIRST_ROW_GROUP_ROWS;
  while (left > 0) {
    const rows = Math.min(size, left);
    yield rows;
    left -= rows;
    size = ROW_GROUP_ROWS;
  }
}
