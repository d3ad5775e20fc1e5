import type { DatabasePool } from 'slonik';
import type { Config } from '../../shared/config.ts';
import type { RedisClient } from '../../shared/redis/createRedis.ts';
import type { LimitScripts } from './createLimitScripts.ts';

/**
 * What the limits need of their process, made once by api/createServices.ts (or per test file) and passed
 * in, never kept behind a module singleton.
 */
export interface LimitDependencies {
  readonly config: Config;
  /** The ledger a lost quota is rebuilt from. */
  readonly pool: DatabasePool;
  /** Fail-fast connection for request-path work: an outage is a 503, not a hang. */
  readonly redis: RedisClient;
  /** The limit scripts, defined once on `redis` (createLimitScripts.ts). */
  readonly limitScripts: LimitScripts;
  /** Namespace of every key this service writes; tests give each file its own. */
  readonly redisPrefix: string;
  /** The clock of domain rules (monthly periods); injectable so tests can cross a month. */
  readonly now: () => Date;
}
