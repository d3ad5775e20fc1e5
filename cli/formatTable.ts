/** Plain aligned columns for people; no colours or escape codes, so it reads the same in a pipe or a log. */
export const formatTable = (headers: readonly string[], rows: readonly (readonly string[])[]): string => {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
};

/** One record as `field  value` lines. */
export const formatFields = (fields: readonly (readonly [string, string])[]): string => {
  const width = Math.max(...fields.map(([name]) => name.length));
  return fields.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n') + '\n';
};

/** Timestamps as the API gives them, shortened to the minute for a table; `-` for none. */
export const formatTime = (value: string | null | undefined): string => (value ? value.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z') : '-');
