/** The response formats of POST /v1/simulations (docs/formats.md, docs/bulk-data.md#parquet). */
export const OUTPUT_FORMATS = ['json', 'ndjson', 'csv', 'parquet'] as const;

export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The formats the engine prints as text (writeRecordChunks); Parquet has a writer of its own (shared/parquet). */
export type TextFormat = Exclude<OutputFormat, 'parquet'>;
