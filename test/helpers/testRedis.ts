import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix of its own per test file: files share one Redis server and never flush it. */
export const createRedisPrefix = (): string => `test:${randomBytes(6).toString('hex')}`;

/** Deletes every key under a prefix (BullMQ's included when it shares the prefix), without FLUSHALL. */
export const deleteRedisPrefix = async (prefix: string, url = TEST_REDIS_URL): Promise<void> => {
  const redis = new Redis(url, { lazyConnect: true });
  redis.on('error', () => {});
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) {
        await redis.unlink(...keys);
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
};
