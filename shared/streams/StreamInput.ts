import type { Scenario } from '../engine/scenario.ts';
import type { ModelSpecification } from '../runs/runSpecification.ts';
import type { StreamDisorder } from './StreamDisorder.ts';

/**
 * Everything that decides a stream's envelopes, with the seed drawn and defaults filled: what the streams
 * row holds (`request`, `speed`, `start_time`), the job carries and a pool task receives. Two equal inputs
 * deliver the same bytes in the same order, on any process (docs/streams.md, "Resuming").
 */
export interface StreamInput {
  /** The canonical preset's name, or the model's name for a model stream (as a simulation result's `preset`). */
  readonly preset: string;
  /**
   * The model version a model stream is made from, its definition included (a pool thread compiles it
   * once, shared/models/compiledModelOf.ts); absent for a preset stream.
   */
  readonly model?: ModelSpecification | undefined;
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
