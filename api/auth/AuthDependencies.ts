import type { DatabasePool } from 'slonik';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import type { RedisClient } from '../../shared/redis/createRedis.ts';
import type { PrincipalCache } from './createPrincipalCache.ts';

/** What authentication needs of its process (api/Services.ts is one of these), passed in. */
export interface AuthDependencies {
  readonly config: Config;
  readonly pool: DatabasePool;
  readonly redis: RedisClient;
  readonly redisPrefix: string;
  readonly logger: Logger;
  readonly now: () => Date;
  /** API-key principals this process has authenticated (createPrincipalCache.ts). */
  readonly principals: PrincipalCache;
}
