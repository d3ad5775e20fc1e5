import type { LimitDependencies } from '../limits/LimitDependencies.ts';
import type { ModelStore } from '../models/createModelStore.ts';
import type { StreamQueue } from './createStreamQueue.ts';
import type { StreamWatch } from './createStreamWatch.ts';

/**
 * What the live streams need of their process (api/Services.ts is one of these), passed in as the run
 * module's dependencies are: a stream's quota is reserved by the same limits as a simulation's
 * (docs/streams.md), its model resolved by the same store.
 */
export interface StreamDependencies extends LimitDependencies {
  /** The queue to the workers that run live streams (docs/streams.md). */
  readonly streams: StreamQueue;
  /** The state of the streams this process's SSE readers read, one query for all (createStreamWatch.ts). */
  readonly streamWatch: StreamWatch;
  /** The accounts' model versions (api/models/createModelStore.ts): a model stream's version. */
  readonly models: ModelStore;
}
