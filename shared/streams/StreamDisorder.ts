/**
 * A stream's known disorder (docs/streams.md#disorder): the share of records delivered late (by up to
 * `max_delay_s`) and the share delivered twice. Drawn from the seed, so every envelope's lateness and
 * duplication is ground truth (docs/streams.md).
 */
export interface StreamDisorder {
  readonly late_share: number;
  readonly max_delay_s: number;
  readonly duplicate_share: number;
}

export const DISORDER_LIMITS = {
  late_share: { min: 0, max: 0.5 },
  max_delay_s: { min: 1, max: 86_400 },
  duplicate_share: { min: 0, max: 0.2 },
} as const;

/** No disorder: every record once, at its event time. */
export const NO_DISORDER: StreamDisorder = { late_share: 0, max_delay_s: 60, duplicate_share: 0 };
