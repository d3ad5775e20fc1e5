import type { RedisTarget } from './RedisTarget.ts';

/**
 * BullMQ's key prefix. Its scripts touch many keys of a queue at once, so on a cluster they must share a
 * hash slot: the prefix becomes a hash tag (`{bss}`) there. On one Redis it stays the plain prefix, so the
 * keys of a single-server deployment keep their names. Only the queue's keys carry it: the limit keys'
 * own `{accountId}` tags keep accounts spread over the cluster.
 */
export const queuePrefix = (redisPrefix: string, target: Pick<RedisTarget, 'kind'>): string =>
  target.kind === 'cluster' ? `{${redisPrefix}}` : redisPrefix;
