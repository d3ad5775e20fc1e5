/** A webhook sink's batching bounds and defaults (docs/streams.md#creating-one). */
export const WEBHOOK_BATCH_LIMITS = {
  batch_max: { min: 1, max: 1000, default: 100 },
  batch_ms: { min: 50, max: 60_000, default: 1000 },
} as const;
