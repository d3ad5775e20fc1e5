import type { RedisHealth } from '../shared/redis/watchRedisHealth.ts';
import type { StreamDependencies } from './streams/StreamDependencies.ts';
import type { Lifecycle } from './Lifecycle.ts';
import type { AuthDependencies } from './auth/AuthDependencies.ts';
import type { BulkDependencies } from './bulk/BulkDependencies.ts';
import type { SamplePool } from './models/createSamplePool.ts';

/**
 * Everything a request handler may reach, built once per process (api/createServices.ts) or per test
 * file (test/helpers), and handed to buildApp. Nothing in api/ imports a singleton: what a process has
 * once (the ledger writer, the limit scripts, the principal cache) is made here and passed in, not kept
 * behind a WeakMap. The layers below the routes take only what they need (RunDependencies,
 * LimitDependencies, AuthDependencies, BulkDependencies, StreamDependencies), each of which this is.
 */
export interface Services extends AuthDependencies, BulkDependencies, StreamDependencies {
  /** Whether Redis is out of service now (shared/redis/watchRedisHealth.ts). */
  readonly redisHealth: RedisHealth;
  readonly lifecycle: Lifecycle;
  /** The thread that makes POST /v1/models/validate's samples (api/models/createSamplePool.ts). */
  readonly samples: SamplePool;
}
