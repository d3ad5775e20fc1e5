/** The response formats of POST /v1/simulations (DECISIONS "Output formats and large runs"). */
export const OUTPUT_FORMATS = ['json', 'ndjson', 'csv'] as const;

export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
