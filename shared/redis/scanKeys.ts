import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from './createRedis.ts';

/**
 * Every key matching `pattern`, by SCAN (never KEYS, which blocks Redis): on a Cluster, every master is
 * scanned. A key may be yielded more than once (SCAN's own guarantee); callers must not mind.
 */
export async function* scanKeys(redis: RedisClient, pattern: string): AsyncGenerator<string> {
  const nodes: readonly Redis[] = redis instanceof Cluster ? redis.nodes('master') : [redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      yield* keys;
    } while (cursor !== '0');
  }
}
