import type { Config } from '../shared/config.ts';
import { createDatabasePool } from '../shared/db/createDatabasePool.ts';
import { createLogger, type Logger } from '../shared/logger.ts';
import { createRedis } from '../shared/redis/createRedis.ts';
import type { Services } from './Services.ts';

export const DEFAULT_REDIS_PREFIX = 'bss';

export interface CreateServicesOptions {
  readonly redisPrefix?: string;
  readonly logger?: Logger;
  readonly now?: () => Date;
}

export const createServices = async (config: Config, options: CreateServicesOptions = {}): Promise<Services> => {
  const pool = await createDatabasePool(config.databaseUrl);
  const redis = createRedis(config.redisUrl, { role: 'api:limits' });
  return {
    config,
    pool,
    redis,
    redisPrefix: options.redisPrefix ?? DEFAULT_REDIS_PREFIX,
    logger: options.logger ?? createLogger(config.logLevel, 'api'),
    lifecycle: { draining: false },
    now: options.now ?? (() => new Date()),
  };
};

/** Closes in dependency order: nothing new can start once the pool and Redis are gone. */
export const closeServices = async (services: Services): Promise<void> => {
  await services.pool.end();
  services.redis.disconnect();
};
