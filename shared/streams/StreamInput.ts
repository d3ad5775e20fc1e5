import type { Scenario } from '../engine/scenario.ts';
import type { PresetName } from '../engine/presetTypes.ts';
import type { StreamDisorder } from './StreamDisorder.ts';

/**
 * Everything that decides a stream's envelopes, with the seed drawn and defaults filled: what the streams
 * row holds (`request`, `speed`, `start_time`), the job carries and a pool task receives. Two equal inputs
 * deliver the same bytes in the same order, on any process (docs/streams.md, "Resuming").
 */
export interface StreamInput {
  readonly preset: PresetName;
  readonly profile: string;
  readonly seed: number;
  readonly numInteractions: number;
  /** The exact engine (4 or later). */
  readonly serviceVersion: string;
  readonly scenario: Scenario | null;
  /** ms since the epoch: no record is earlier, and the pacing's origin. */
  readonly startTime: number;
  readonly population: number;
  /** Event-time seconds per second of wall clock. */
  readonly speed: number;
  readonly disorder: StreamDisorder;
}
