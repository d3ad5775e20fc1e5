import { createHash } from 'node:crypto';
import type { RedisClient } from '../../shared/redis/createRedis.ts';

/** Where body lengths are kept. */
interface LengthStore {
  readonly redis: RedisClient;
  readonly redisPrefix: string;
}

/** Long enough for a download to be resumed days later; a forgotten length is only measured again. */
const LENGTH_TTL_S = 30 * 24 * 60 * 60;

const lengthKey = (services: LengthStore, tag: string): string =>
  `${services.redisPrefix}:body-length:${createHash('sha256').update(tag).digest('base64url').slice(0, 32)}`;

/**
 * The length of the body an ETag names, once some answer has made it whole (HEAD and ranges answer
 * from it without running the engine again). A cache: Redis losing it costs one more run, never a wrong
 * answer, since the tag fixes the bytes.
 */
export const recallBodyLength = async (services: LengthStore, tag: string): Promise<number | undefined> => {
  const value = await services.redis.get(lengthKey(services, tag));
  const length = value === null ? Number.NaN : Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
};

export const rememberBodyLength = async (services: LengthStore, tag: string, length: number): Promise<void> => {
  await services.redis.set(lengthKey(services, tag), String(length), 'EX', LENGTH_TTL_S);
};
