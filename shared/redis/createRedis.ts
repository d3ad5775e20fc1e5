import { Redis, type RedisOptions } from 'ioredis';

export type RedisRole = 'api:limits' | 'api:queue' | 'api:replies' | 'api:auth' | 'worker' | 'worker:queue' | 'worker:events' | 'worker:metrics' | 'admin' | 'test';

export interface CreateRedisOptions {
  /** Shown by CLIENT LIST, so an operator can tell every connection's job. */
  readonly role: RedisRole;
  /**
   * Blocking and subscriber connections wait forever by design; request-path connections fail fast so
   * an outage answers 503 at once instead of queueing commands until the deadline.
   */
  readonly blocking?: boolean;
  readonly keyPrefix?: string;
}

export const createRedis = (url: string, options: CreateRedisOptions): Redis => {
  const common: RedisOptions = {
    connectionName: `bss:${options.role}`,
    // Reconnect quickly but not in a hot loop; a restarted Redis is picked up within a second.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
  };
  const redis = options.blocking
    ? new Redis(url, { ...common, maxRetriesPerRequest: null, enableReadyCheck: true })
    : new Redis(url, { ...common, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 1000 });
  // ioredis emits 'error' on every failed reconnect; without a listener Node would crash the process.
  redis.on('error', () => {});
  return redis;
};
