import type { RunTimingSpec } from '../../shared/engine/RunTimingSpec.ts';
import type { Scenario } from '../../shared/engine/scenario.ts';

/**
 * `name` or `name@version` (docs/models.md#running-a-model-post-v1simulations-with-model): a model name, and a
 * version from 1.
 */
export const MODEL_REFERENCE = /^([a-z][a-z0-9_]{0,39})(?:@([1-9][0-9]{0,8}))?$/;

/**
 * A POST /v1/simulations body that names a model, before the model is looked up: the validate stage
 * resolves it against the caller's models and checks the rest against the version's catalog.
 */
export interface ModelRunRequest {
  readonly kind: 'model';
  readonly name: string;
  /** Absent: the latest version. */
  readonly version: number | undefined;
  readonly profile: string | undefined;
  readonly seed: number | undefined;
  readonly numInteractions: number;
  /** The engine as the body asked for it: a major or an exact version (resolveModelRequest resolves it). */
  readonly engine: string | undefined;
  readonly scenario: Scenario | undefined;
  /** Engine 4's clock inputs, checked against the resolved engine with the model (resolveModelRequest). */
  readonly startTime: string | undefined;
  readonly order: RunTimingSpec['order'] | undefined;
  readonly population: number | undefined;
}
