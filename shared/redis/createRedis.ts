import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { describeError } from '../errors/describeError.ts';
import type { Logger } from '../logger.ts';
import type { RedisNode, RedisTarget } from './RedisTarget.ts';

type RedisRole = 'api:limits' | 'api:queue' | 'api:replies' | 'api:auth' | 'worker' | 'worker:queue' | 'worker:events' | 'worker:metrics' | 'worker:control' | 'api:streams' | 'worker:streams' | 'admin' | 'test';

/**
 * A connection to one Redis or to a Redis Cluster. Both share every command; code that must tell them
 * apart (Pub/Sub, transactions spanning slots) reads `isCluster`.
 */
export type RedisClient = Redis | Cluster;

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

// Reconnect quickly but not in a hot loop; a restarted Redis is picked up within a second.
const retryStrategy = (attempt: number): number => Math.min(attempt * 100, 1000);

export const createRedis = (target: RedisTarget, options: CreateRedisOptions): RedisClient => {
  const redis = target.kind === 'cluster' ? createCluster(target.nodes, options) : createSingle(target.url, options);
  // ioredis emits 'error' on every failed reconnect; without a listener Node would crash the process.
  redis.on('error', logRateLimited(options.logger, options.role));
  return redis;
};

const createSingle = (url: string, options: CreateRedisOptions): Redis => {
  const common: RedisOptions = { connectionName: `bss:${options.role}`, retryStrategy };
  return options.blocking
    ? new Redis(url, { ...common, maxRetriesPerRequest: null, enableReadyCheck: true })
    : // No retry: a command in flight when the link breaks fails at that close. With one retry ioredis keeps
      // it for a resend on the next connection, and a reconnect that connects and is cut again (a proxy, a
      // balancer) hands it on past the flush: the request hung until Redis was back. A resend could also
      // run a limit script twice.
      new Redis(url, { ...common, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000 });
};

/**
 * The same two behaviours on a cluster. Fail-fast is the cluster's own offline queue switched off: a
 * command is refused at once while the cluster is not ready, and a command to a node that is gone is
 * retried only through ioredis' failover redirections (retryDelayOnFailover x maxRedirections, about
 * 1.6 s), which is what carries a request across a replica's promotion. The nodes' own connections keep
 * their offline queue: they connect lazily, and the first command to a node waits for that connection.
 */
const createCluster = (nodes: readonly RedisNode[], options: CreateRedisOptions): Cluster => {
  const cluster = new Cluster([...nodes], {
    clusterRetryStrategy: retryStrategy,
    enableOfflineQueue: options.blocking === true,
    enableReadyCheck: true,
    redisOptions: options.blocking
      ? { connectionName: `bss:${options.role}`, maxRetriesPerRequest: null }
      : { connectionName: `bss:${options.role}`, maxRetriesPerRequest: 1, connectTimeout: 1000 },
  });
  // A node is connected as soon as the cluster learns of it, not at its first command: a fail-fast client
  // refuses a command to a node still connecting and sends it again later, which would let a worker's
  // next append to the same reply stream overtake it.
  cluster.on('+node', (node: Redis) => {
    if (node.status === 'wait') {
      node.connect().catch(() => {});
    }
  });
  return cluster;
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
