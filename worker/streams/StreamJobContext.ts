import type { DatabasePool } from 'slonik';
import type { Piscina } from 'piscina';
import type { RedisClient } from '../../shared/redis/createRedis.ts';
import type { StreamChunk, StreamChunkTask } from './streamChunkTask.ts';
import type { StreamProgress } from './createStreamProgress.ts';

/** What a stream job reaches on its worker (worker/streams/startStreamWorker.ts builds it once). */
export interface StreamJobContext {
  readonly pool: DatabasePool;
  readonly threads: Piscina<StreamChunkTask, StreamChunk>;
  readonly redis: RedisClient;
  /** Where the clocks report how far their events are due, recorded for all of them at once. */
  readonly progress: StreamProgress;
  readonly stopping: () => boolean;
  /** Opens the webhook secret (sealed by the API under a key derived from it). */
  readonly sessionSecret: string;
  readonly webhookAllowPrivate: boolean;
  /** The first retry's wait; it doubles per try (1 s; tests shorten it). */
  readonly retryBaseMs: number;
}
