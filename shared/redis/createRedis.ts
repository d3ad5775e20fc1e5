import { Redis, type RedisOptions } from 'ioredis';
import { describeError } from '../errors/describeError.ts';
import type { Logger } from '../logger.ts';

type RedisRole = 'api:limits' | 'api:queue' | 'api:replies' | 'api:auth' | 'worker' | 'worker:queue' | 'worker:events' | 'worker:metrics' | 'worker:control' | 'admin' | 'test';

/** While Redis stays down ioredis errors on every reconnect attempt: one line per connection this often. */
const ERROR_LOG_INTERVAL_MS = 10_000;

export interface CreateRedisOptions {
  /** Shown by CLIENT LIST, so an operator can tell every connection's job. */
  readonly role: RedisRole;
  /**
   * Blocking and subscriber connections wait forever by design; request-path connections fail fast so
   * an outage answers 503 at once instead of queueing commands until the deadline.
   */
  readonly blocking?: boolean;
  /** Where connection errors go (rate-limited), so an outage shows in the logs and not only in /ready. */
  readonly logger: Logger;
}

export const createRedis = (url: string, options: CreateRedisOptions): Redis => {
  const common: RedisOptions = {
    connectionName: `bss:${options.role}`,
    // Reconnect quickly but not in a hot loop; a restarted Redis is picked up within a second.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  };
  const redis = options.blocking
    ? new Redis(url, { ...common, maxRetriesPerRequest: null, enableReadyCheck: true })
    : new Redis(url, { ...common, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 1000 });
  // ioredis emits 'error' on every failed reconnect; without a listener Node would crash the process.
  redis.on('error', logRateLimited(options.logger, options.role));
  return redis;
};

/** The first error of an outage at once, then one line per interval with how many were left out. */
const logRateLimited = (logger: Logger, role: RedisRole): ((error: unknown) => void) => {
  let lastLoggedAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (error) => {
    const now = Date.now();
    if (now - lastLoggedAt < ERROR_LOG_INTERVAL_MS) {
      suppressed += 1;
      return;
    }
    logger.warn({ redis_role: role, error: describeError(error), suppressed }, 'redis connection error');
    lastLoggedAt = now;
    suppressed = 0;
  };
};
