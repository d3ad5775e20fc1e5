import type { RedisClient } from '../shared/redis/createRedis.ts';
import type { RedisHealth } from '../shared/redis/watchRedisHealth.ts';
import type { DatabasePool } from 'slonik';
import type { StreamQueue } from './streams/createStreamQueue.ts';
import type { Config } from '../shared/config.ts';
import type { Logger } from '../shared/logger.ts';
import type { Lifecycle } from './Lifecycle.ts';
import type { PrincipalCache } from './auth/createPrincipalCache.ts';
import type { LimitScripts } from './limits/createLimitScripts.ts';
import type { LedgerWriter } from './runs/createLedgerWriter.ts';
import type { LeaseKeeper } from './limits/createLeaseKeeper.ts';
import type { Metrics } from './metrics/createMetrics.ts';
import type { ModelStore } from './models/createModelStore.ts';
import type { SamplePool } from './models/createSamplePool.ts';
import type { SimulationClient } from './simulations/createSimulationClient.ts';
import type { LengthMeasurements } from './bulk/createLengthMeasurements.ts';
import type { SendQueueReader } from './simulations/createSendQueueReader.ts';

/**
 * Everything a request handler may reach, built once per process (api/createServices.ts) or per test
 * file (test/helpers), and handed to buildApp. Nothing in api/ imports a singleton: what a process has
 * once (the ledger writer, the limit scripts, the principal cache) is made here and passed in, not kept
 * behind a WeakMap.
 */
export interface Services {
  readonly config: Config;
  readonly pool: DatabasePool;
  /** Fail-fast connection for request-path work (limits, caches): an outage is a 503, not a hang. */
  readonly redis: RedisClient;
  /** The limit scripts, defined once on `redis` (api/limits/createLimitScripts.ts). */
  readonly limitScripts: LimitScripts;
  /** Whether Redis is out of service now (shared/redis/watchRedisHealth.ts). */
  readonly redisHealth: RedisHealth;
  /** Namespace of every key this service writes; tests give each file its own. */
  readonly redisPrefix: string;
  readonly logger: Logger;
  /** The ledger's group-commit writer (api/simulations/createLedgerWriter.ts). */
  readonly ledger: LedgerWriter;
  /** Keeps this process's runs' in-flight entries in Redis (api/simulations/createLeaseKeeper.ts). */
  readonly leases: LeaseKeeper;
  /** API-key principals this process has authenticated (api/auth/createPrincipalCache.ts). */
  readonly principals: PrincipalCache;
  readonly lifecycle: Lifecycle;
  /** The clock of domain rules (monthly periods); injectable so tests can cross a month. */
  readonly now: () => Date;
  /** The queue to the simulation workers and the reply channel back from them. */
  readonly simulations: SimulationClient;
  /** This process's Prometheus registry and series (api/metrics); one per app, so tests get their own. */
  readonly metrics: Metrics;
  /** The queue to the workers that run live streams (docs/streams.md). */
  readonly streams: StreamQueue;
  /** Body lengths being measured in this process, shared by the requests that wait on one (api/bulk). */
  readonly lengthMeasurements: LengthMeasurements;
  /** What the kernel still holds for each client connection: where stream stalls are measured. */
  readonly sendQueues: SendQueueReader;
  /** The accounts' model versions, cached by (account, name, version) (api/models/createModelStore.ts). */
  readonly models: ModelStore;
  /** The thread that makes POST /v1/models/validate's samples (api/models/createSamplePool.ts). */
  readonly samples: SamplePool;
}
