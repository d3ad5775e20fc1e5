import { createSamplePool } from './models/createSamplePool.ts';
import { createModelStore } from './models/createModelStore.ts';
import { raceTimeout } from '../shared/async/raceTimeout.ts';
import type { Config } from '../shared/config.ts';
import { createDatabasePool } from '../shared/db/createDatabasePool.ts';
import { createLogger, type Logger } from '../shared/logger.ts';
import { createRedis, type RedisClient } from '../shared/redis/createRedis.ts';
import { watchRedisHealth } from '../shared/redis/watchRedisHealth.ts';
import { createMetrics } from './metrics/createMetrics.ts';
import { instrumentSimulationClient } from './metrics/instrumentSimulationClient.ts';
import { createSimulationClient } from './simulations/createSimulationClient.ts';
import type { Services } from './Services.ts';
import { createPrincipalCache } from './auth/createPrincipalCache.ts';
import { createStreamQueue } from './streams/createStreamQueue.ts';
import { createStreamWatch } from './streams/createStreamWatch.ts';
import { createLimitScripts } from './limits/createLimitScripts.ts';
import { createLedgerWriter } from './runs/createLedgerWriter.ts';
import { createLeaseKeeper } from './limits/createLeaseKeeper.ts';
import { createLengthMeasurements } from './bulk/createLengthMeasurements.ts';
import { createSendQueueReader } from './simulations/createSendQueueReader.ts';

const waitUntilReady = async (redis: RedisClient, timeoutMs: number): Promise<void> => {
  if (redis.status !== 'ready') {
    // Not events.once: ioredis emits 'error' on each failed attempt, and this wait only ends on 'ready'.
    await raceTimeout(new Promise<void>((resolve) => redis.once('ready', () => resolve())), timeoutMs);
  }
};

export interface CreateServicesOptions {
  readonly redisPrefix?: string;
  readonly logger?: Logger;
  readonly now?: () => Date;
}

export const createServices = async (config: Config, options: CreateServicesOptions = {}): Promise<Services> => {
  const pool = await createDatabasePool(config.databaseUrl);
  const logger = options.logger ?? createLogger(config.logLevel, 'api');
  const redis = createRedis(config.redis, { role: 'api:limits', logger });
  const redisPrefix = options.redisPrefix ?? config.redisPrefix;
  const simulationClient = createSimulationClient({ redis: config.redis, prefix: redisPrefix, logger, dataPlane: config.dataPlane });
  const lifecycle = { draining: false };
  const metrics = createMetrics({ queue: simulationClient.queue, redis, redisPrefix, logger, pool, lifecycle });
  const simulations = instrumentSimulationClient(simulationClient, metrics);
  // Fail-fast connections refuse commands until connected: give Redis a moment before serving, but do
  // start without it (/ready then reports it) rather than refuse to boot.
  await Promise.all([waitUntilReady(redis, 2000), simulations.waitUntilReady(2000)]);
  const limitScripts = createLimitScripts(redis);
  return {
    config,
    pool,
    redis,
    limitScripts,
    redisHealth: watchRedisHealth(redis),
    redisPrefix,
    logger,
    ledger: createLedgerWriter(pool),
    leases: createLeaseKeeper(redis, limitScripts, { prefix: redisPrefix, logger }),
    principals: createPrincipalCache(),
    lifecycle,
    now: options.now ?? (() => new Date()),
    simulations,
    metrics,
    streams: createStreamQueue({ redis: config.redis, prefix: redisPrefix, logger }),
    streamWatch: createStreamWatch(pool, logger),
    lengthMeasurements: createLengthMeasurements(),
    sendQueues: createSendQueueReader(),
    models: createModelStore(pool),
    samples: createSamplePool(),
  };
};

/** Closes in dependency order: nothing new can start once the pool and Redis are gone. */
export const closeServices = async (services: Services): Promise<void> => {
  // The rows of runs already answered (written after the answer: api/runs/createRun.ts), then the
  // keeper's last batch, which drops their entries.
  await services.ledger.drain();
  await services.leases.stop();
  await services.simulations.close();
  await services.streams.close();
  services.streamWatch.close();
  await services.samples.destroy();
  await services.pool.end();
  services.redisHealth.stop();
  services.redis.disconnect();
};
